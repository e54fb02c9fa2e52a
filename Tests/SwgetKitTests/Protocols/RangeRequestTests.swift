import Foundation
import Testing
@testable import SwgetKit

@Suite("Range requests as handlers read them")
struct RangeRequestTests {
    @Test(arguments: [
        ("bytes=100-", Int64?(100)), ("BYTES=7-", 7), ("  bytes=1-  ", 1), ("bytes=0-", 0),
        ("bytes=100-199", nil), ("bytes=-100", nil), ("bytes=1-,5-", nil), ("items=1-", nil), ("bytes=", nil),
        ("bytes=-", nil), ("bytes=+5-", nil), ("bytes= 5-", nil), ("bytes=٣-", nil), ("bytes=5\u{0}-", nil),
        ("bytes=1234567890123456789-", nil), ("bytes=123456789012345678-", 123_456_789_012_345_678),
    ])
    func openOffset(_ value: String, _ expected: Int64?) {
        #expect(RangeRequest.openOffset(value) == expected)
    }

    @Test func readsTheFields() {
        #expect(RangeRequest(["Range": "bytes=10-", "If-Range": " \"e\" "]) == RangeRequest(offset: 10, ifRange: "\"e\""))
        #expect(RangeRequest(["If-Range": "\"e\""]) == RangeRequest(offset: 0, ifRange: nil))
        #expect(RangeRequest(["Range": "bytes=0-", "If-Range": "\"e\""]).ifRange == nil)
        #expect(RangeRequest(["Range": "bytes=5-9"]).offset == 0)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let range: RangeRequest
        let length: Int64
        let matches: Bool
        let answer: RangeAnswer
        var testDescription: String { "\(range.offset) of \(length), If-Range \(range.ifRange ?? "-"), matches \(matches)" }
    }

    @Test(arguments: [
        Case(range: .init(offset: 0, ifRange: nil), length: 10, matches: false, answer: .whole),
        Case(range: .init(offset: 4, ifRange: nil), length: 10, matches: false, answer: .partial(offset: 4)),
        Case(range: .init(offset: 4, ifRange: "x"), length: 10, matches: true, answer: .partial(offset: 4)),
        Case(range: .init(offset: 4, ifRange: "x"), length: 10, matches: false, answer: .whole),
        Case(range: .init(offset: 10, ifRange: "x"), length: 10, matches: true, answer: .unsatisfiable),
        Case(range: .init(offset: 11, ifRange: nil), length: 10, matches: false, answer: .unsatisfiable),
        Case(range: .init(offset: 1, ifRange: nil), length: 0, matches: false, answer: .unsatisfiable),
    ])
    func decides(_ c: Case) {
        #expect(RangeAnswer.decide(c.range, length: c.length, validatorMatches: c.matches) == c.answer)
    }

    @Test func fieldsAreWhatResumeNegotiationReads() throws {
        let partial = RangeAnswer.partial(offset: 4).response(url: try #require(URL(string: "data:,x")), length: 10, extra: ["ETag": "\"a\""])
        #expect(partial.statusCode == 206)
        #expect(partial.headers["Content-Range"] == "bytes 4-9/10")
        #expect(partial.headers["Content-Length"] == "6")
        #expect(partial.expectedContentLength == 6)
        #expect(ContentRange(partial.headers["Content-Range"] ?? "") == ContentRange("bytes 4-9/10"))
        let whole = RangeAnswer.whole.response(url: try #require(URL(string: "data:,x")), length: 10, extra: [:], headOnly: true)
        #expect(whole.statusCode == 200 && whole.headers["Content-Length"] == "10" && whole.expectedContentLength == 0)
        let none = RangeAnswer.unsatisfiable.fields(length: 10)
        #expect(none["Content-Range"] == "bytes */10" && none["Content-Length"] == "0")
    }
}
