import Foundation
import Testing
@testable import SwgetKit

@Suite("Cookie dates (RFC 6265bis §5.1.1)")
struct CookieDateTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let input: String
        /// Seconds since 1970, or nil when the algorithm must reject the input.
        let expected: Int64?
        var testDescription: String { input.debugDescription }
    }

    /// 2021-06-09T10:18:14Z, the RFC's example date.
    static let june9: Int64 = 1_623_233_894

    static let cases: [Case] = [
        // The formats servers send.
        Case(input: "Wed, 09 Jun 2021 10:18:14 GMT", expected: june9),
        Case(input: "Wednesday, 09-Jun-21 10:18:14 GMT", expected: june9),
        Case(input: "Wed Jun  9 10:18:14 2021", expected: june9),
        Case(input: "Wed, 09-Jun-2021 10:18:14 GMT", expected: june9),
        Case(input: "Wed, 09 Jun 2021 10:18:14 +0200", expected: june9),   // zones are ignored
        Case(input: "09 Jun 2021 10:18:14", expected: june9),
        Case(input: "10:18:14 2021 jun 09", expected: june9),               // any order
        Case(input: "Wed, 09 JUNE 2021 10:18:14 GMT", expected: june9),     // month: first three letters
        Case(input: "wed, 09 jun 2021 10:18:14 gmt", expected: june9),
        Case(input: "Wed, 9 Jun 2021 10:18:14 GMT", expected: june9),
        // Garbage around the tokens.
        Case(input: "xxWed, 09th Jun 2021 10:18:14gmt", expected: june9),
        Case(input: ";;Wed,,, 09 Jun 2021 10:18:14 GMT;;;", expected: june9),
        Case(input: "{09}[Jun](2021)<10:18:14>", expected: june9),
        Case(input: "Wed, 09 Jun 2021 10:18:14 GMT 11:11:11 12 Dec 1999", expected: june9),  // first match wins
        Case(input: "Thu, 01 Jan 1970 0:0:0 GMT", expected: 0),
        // Two-digit years.
        Case(input: "01 Jan 70 00:00:00", expected: 0),
        Case(input: "01 Jan 99 00:00:00", expected: 915_148_800),
        Case(input: "01 Jan 00 00:00:00", expected: 946_684_800),
        Case(input: "01 Jan 69 00:00:00", expected: 3_124_224_000),
        Case(input: "01 Jan 0069 00:00:00", expected: 3_124_224_000),      // the rule is on the value
        // Edges of the range.
        Case(input: "01 Jan 1601 00:00:00", expected: -11_644_473_600),
        Case(input: "31 Dec 9999 23:59:59", expected: 253_402_300_799),
        Case(input: "29 Feb 2024 12:00:00", expected: 1_709_208_000),
        Case(input: "29 Feb 2000 00:00:00", expected: 951_782_400),
        Case(input: "31 Dec 2021 23:59:59", expected: 1_640_995_199),
        // Rejected: something missing.
        Case(input: "", expected: nil),
        Case(input: "garbage", expected: nil),
        Case(input: "Wed, 09 Jun 2021", expected: nil),
        Case(input: "09 Jun 10:18:14", expected: nil),
        Case(input: "Jun 2021 10:18:14", expected: nil),
        Case(input: "09 2021 10:18:14", expected: nil),
        Case(input: "09 Jux 2021 10:18:14", expected: nil),
        Case(input: "09 Jün 2021 10:18:14", expected: nil),
        // Rejected: out of range.
        Case(input: "09 Jun 2021 24:00:00", expected: nil),
        Case(input: "09 Jun 2021 23:60:00", expected: nil),
        Case(input: "09 Jun 2021 23:59:60", expected: nil),                  // no leap seconds
        Case(input: "32 Jun 2021 10:18:14", expected: nil),
        Case(input: "00 Jun 2021 10:18:14", expected: nil),
        Case(input: "09 Jun 1600 10:18:14", expected: nil),
        Case(input: "31 Apr 2021 10:18:14", expected: nil),                  // no such day
        Case(input: "29 Feb 2023 10:18:14", expected: nil),
        Case(input: "29 Feb 1900 10:18:14", expected: nil),
        // Rejected: tokens that do not match their production.
        Case(input: "09 Jun 2021 100:18:14", expected: nil),                 // three-digit time field
        Case(input: "09 Jun 2021 10:18:145", expected: nil),
        Case(input: "09 Jun 2021 10:18", expected: nil),
        Case(input: "09 Jun 20210 10:18:14", expected: nil),                 // five-digit year
        Case(input: "09 Jun 1 10:18:14", expected: nil),                     // one-digit year
        Case(input: "123 Jun 2021 10:18:14", expected: nil),                 // "123" is taken as the year
        Case(input: "09\u{0}Jun 2021 10:18:14", expected: nil),              // NUL is not a delimiter
        Case(input: "09\u{1}Jun 2021 10:18:14", expected: nil),
    ]

    @Test(arguments: cases)
    func parse(_ c: Case) {
        let parsed = CookieDate.parse(c.input)
        #expect(parsed.map { Int64($0.timeIntervalSince1970) } == c.expected)
    }

    @Test func format() {
        #expect(CookieDate.format(Date(timeIntervalSince1970: TimeInterval(Self.june9))) == "Wed, 09 Jun 2021 10:18:14 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 1e15)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 0.999)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    /// Seeded random instants between 1601 and 9999 survive format → parse.
    @Test func formatParseRoundTrip() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = -11_644_473_600 + Int64(state >> 20) % (253_402_300_799 + 11_644_473_600)
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = CookieDate.format(date)
            #expect(CookieDate.parse(text) == date, "\(seconds) → \(text)")
        }
    }

    @Test func civilArithmeticAgreesWithCalendar() {
        for days in stride(from: Int64(-150_000), through: 3_000_000, by: 997) {
            let (y, m, d) = CivilCalendar.civil(fromDays: days)
            #expect(CivilCalendar.daysFromEpoch(year: y, month: m, day: d) == days)
            #expect((1...12).contains(m) && d >= 1 && d <= CivilCalendar.daysInMonth(m, year: y))
        }
    }

    /// Hostile input: long, delimiter-only, token-only; all answered without trouble.
    @Test func hostileInput() {
        #expect(CookieDate.parse(String(repeating: "a ", count: 100_000)) == nil)
        #expect(CookieDate.parse(String(repeating: ";", count: 100_000)) == nil)
        #expect(CookieDate.parse(String(repeating: "9", count: 100_000)) == nil)
        #expect(CookieDate.parse(String(repeating: "1:1:1 ", count: 10_000)) == nil)
        let padded = String(repeating: "x", count: 50_000) + " 09 Jun 2021 10:18:14 " + String(repeating: "#", count: 50_000)
        #expect(CookieDate.parse(padded).map { Int64($0.timeIntervalSince1970) } == Self.june9)
    }
}
