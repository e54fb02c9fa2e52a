import Foundation
import Testing
import SwgetKit
@testable import SwgetCLI

/// curl's `--time-cond` values: the date forms curl users write, the sign, and the file
/// fallback, without a server.
@Suite("--time-cond dates")
struct TimeConditionTests {
    /// 1994-11-06 08:49:37 GMT, the RFC 9110 example.
    static let example: TimeInterval = 784_111_777

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", example),
        ("Sunday, 06-Nov-94 08:49:37 GMT", example),
        ("Sun Nov  6 08:49:37 1994", example),
        ("6 Nov 1994 08:49:37", example),
        ("Nov 6, 1994 08:49:37 UTC", example),
        ("November 6 1994 8:49:37", example),
        ("1994-11-06T08:49:37Z", example),
        ("1994-11-06T09:49:37+01:00", example),
        ("1994-11-06 10:49:37 +0200", example),
        ("Sun, 06 Nov 1994 01:49:37 -0700", example),
        ("1994-11-06", example - 31_777),
        ("19941106", example - 31_777),
        ("6 Nov 1994", example - 31_777),
        ("06 nov 1994 08:49", example - 37),
        ("29 Feb 2024", 1_709_164_800),
        ("1 Jan 1970", 0),
    ])
    func parsesCurlsForms(_ text: String, _ expected: TimeInterval) {
        #expect(CurlDate.parse(text)?.timeIntervalSince1970 == expected)
    }

    @Test(arguments: [
        "", "yesterday", "12:00", "Nov 1994", "31 Feb 2023", "29 Feb 2023", "2023-13-01", "2023-1-1x",
        "6 Nov 1994 25:00", "6 Nov 1994 08:61", "6 Nov 1994 GMT GMT", "6 6 6 1994", "Sun, 06 Nov 1994 08:49:37 XYZ",
        "1969-12-31", "Novembre 6 1994", "+0100", String(repeating: "1 ", count: 40),
    ])
    func refusesWhatIsNotADate(_ text: String) {
        #expect(CurlDate.parse(text) == nil)
    }

    @Test func theSignChoosesTheDirection() throws {
        let noFile: (String) -> Date? = { _ in nil }
        let newer = try #require(TimeCondition("6 Nov 1994", modificationTime: noFile))
        #expect(newer.direction == .newer)
        let plus = try #require(TimeCondition("+6 Nov 1994", modificationTime: noFile))
        #expect(plus == newer)
        let older = try #require(TimeCondition("-6 Nov 1994", modificationTime: noFile))
        #expect(older.direction == .older && older.date == newer.date)
        #expect(older.cachePolicy == .reloadIfUnmodifiedSince(newer.date))
        #expect(newer.cachePolicy == .reloadRevalidatingCacheData(CacheValidator(lastModified: newer.date)))
    }

    @Test func aValueThatIsNoDateNamesAFile() throws {
        let stamp = Date(timeIntervalSince1970: 1_000_000_000)
        let files: (String) -> Date? = { $0 == "local.html" ? stamp : nil }
        #expect(TimeCondition("local.html", modificationTime: files)?.date == stamp)
        #expect(TimeCondition("-local.html", modificationTime: files) == TimeCondition(direction: .older, date: stamp))
        #expect(TimeCondition("missing.html", modificationTime: files) == nil)
        #expect(TimeCondition("-", modificationTime: files) == nil)
        #expect(TimeCondition("", modificationTime: files) == nil)
    }
}
