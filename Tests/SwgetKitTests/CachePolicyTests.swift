#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// Request cache policies without a cache store: the fields they add, and when an answer means
/// the caller's copy is current.
@Suite("Cache policies (pure)")
struct CachePolicyTests {
    static let copy = Date(timeIntervalSince1970: 1_672_628_645)  // Mon, 02 Jan 2023 03:04:05 GMT

    @Test func datesFormatAsIMFFixdateAndParseBack() {
        #expect(HTTPDate.format(Self.copy) == "Mon, 02 Jan 2023 03:04:05 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        for seconds in stride(from: 0, to: 4_000_000_000, by: 123_456_789) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test func fieldsOfEachPolicy() {
        #expect(CachePolicy.useProtocolCachePolicy.fields.isEmpty)
        #expect(CachePolicy.reloadIgnoringLocalCacheData.fields.map { "\($0.name): \($0.value)" } == ["Cache-Control: no-cache", "Pragma: no-cache"])
        var validator = CacheValidator(lastModified: Self.copy, length: 5, entityTag: "\"e\"")
        #expect(CachePolicy.reloadRevalidatingCacheData(validator).fields.map { "\($0.name): \($0.value)" }
                == ["If-Modified-Since: Mon, 02 Jan 2023 03:04:05 GMT", "If-None-Match: \"e\""])
        validator.sendsIfModifiedSince = false
        #expect(CachePolicy.reloadRevalidatingCacheData(validator).fields.map(\.name) == ["If-None-Match"])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let status: Int
        let lastModified: String?
        let length: Int64?
        let notModified: Bool
        var testDescription: String { "\(status) \(lastModified ?? "-") \(length.map(String.init) ?? "-") → \(notModified)" }
    }

    @Test(arguments: [
        Case(status: 304, lastModified: nil, length: nil, notModified: true),
        Case(status: 200, lastModified: "Mon, 02 Jan 2023 03:04:05 GMT", length: 5, notModified: true),
        Case(status: 200, lastModified: "Sun, 01 Jan 2023 03:04:05 GMT", length: 5, notModified: true),
        Case(status: 200, lastModified: "Tue, 03 Jan 2023 03:04:05 GMT", length: 5, notModified: false),
        Case(status: 200, lastModified: "Mon, 02 Jan 2023 03:04:05 GMT", length: 6, notModified: false),
        Case(status: 200, lastModified: nil, length: 5, notModified: false),
        Case(status: 200, lastModified: "garbage", length: 5, notModified: false),
        Case(status: 206, lastModified: "Mon, 02 Jan 2023 03:04:05 GMT", length: 5, notModified: false),
        Case(status: 404, lastModified: "Mon, 02 Jan 2023 03:04:05 GMT", length: 5, notModified: false),
    ])
    func notModified(_ c: Case) throws {
        let policy = CachePolicy.reloadRevalidatingCacheData(CacheValidator(lastModified: Self.copy, length: 5))
        var headers = HeaderFields()
        if let value = c.lastModified { headers.add("Last-Modified", value) }
        let response = Response(url: try #require(URL(string: "http://h/f")), statusCode: c.status, reasonPhrase: "",
                                httpVersion: "HTTP/1.1", headers: headers, expectedContentLength: c.length)
        #expect(policy.isNotModified(response) == c.notModified)
        #expect(!CachePolicy.useProtocolCachePolicy.isNotModified(response))
    }
}
