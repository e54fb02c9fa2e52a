import Foundation
import NIOHTTP1
import Testing
@testable import SwgetKit

/// How a request body is announced: Content-Length or chunked, and when `Expect: 100-continue`
/// goes with it (RFC 9110 §8.6, §10.1.1; curl's 1 MiB rule), then the head written from it.
@Suite("Request framing: Content-Length, chunked, Expect")
struct RequestFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let length: Int64??
        let expect: [String]
        let threshold: Int64?
        let framing: RequestFraming.Length
        let expectContinue: Bool
        var testDescription: String { name }
    }

    static let mib: Int64 = 1 << 20

    static func c(_ name: String, method: String = "POST", _ length: Int64??, expect: [String] = [], threshold: Int64? = mib,
                  _ framing: RequestFraming.Length, _ expectContinue: Bool) -> Case {
        Case(name: name, method: method, length: length, expect: expect, threshold: threshold, framing: framing,
             expectContinue: expectContinue)
    }

    static let cases: [Case] = [
        c("GET without a body", method: "GET", Int64??.none, .none, false),
        c("HEAD without a body", method: "HEAD", Int64??.none, .none, false),
        c("DELETE without a body", method: "DELETE", Int64??.none, .none, false),
        c("POST without a body says 0", method: "POST", Int64??.none, .known(0), false),
        c("PUT without a body says 0", method: "put", Int64??.none, .known(0), false),
        c("PATCH without a body says 0", method: "PATCH", Int64??.none, .known(0), false),
        c("an empty body", .some(0), .known(0), false),
        c("a small body", .some(5), .known(5), false),
        c("one byte under 1 MiB", .some(mib - 1), .known(mib - 1), false),
        c("exactly 1 MiB waits", .some(mib), .known(mib), true),
        c("a large body waits", .some(1 << 30), .known(1 << 30), true),
        c("unknown length is chunked and waits", .some(nil), .chunked, true),
        c("no threshold: never waits", .some(1 << 30), threshold: nil, .known(1 << 30), false),
        c("no threshold, chunked: never waits", .some(nil), threshold: nil, .chunked, false),
        c("threshold 0 waits for any non-empty body", .some(1), threshold: 0, .known(1), true),
        c("threshold 0, empty body: nothing to wait for", .some(0), threshold: 0, .known(0), false),
        c("caller's empty Expect: none", .some(1 << 30), expect: [""], .known(1 << 30), false),
        c("caller's blank Expect: none", .some(nil), expect: ["  "], .chunked, false),
        c("caller's 100-continue on a small body waits", .some(10), expect: ["100-Continue"], .known(10), true),
        c("caller's 100-continue on an empty body does not", .some(0), expect: ["100-continue"], .known(0), false),
        c("caller's other expectation: sent, no wait", .some(1 << 30), expect: ["x-custom"], .known(1 << 30), false),
        c("negative length is clamped", .some(-5), .known(0), false),
        c("GET with a body keeps it", method: "GET", .some(3), .known(3), false),
    ]

    @Test("framing and expectation", arguments: cases)
    func framing(_ c: Case) {
        let framing = RequestFraming(method: c.method, bodyLength: c.length, expect: c.expect, threshold: c.threshold)
        #expect(framing.length == c.framing)
        #expect(framing.expectContinue == c.expectContinue)
        #expect(framing.hasBody == (c.length != nil))
    }

    static func head(_ framing: RequestFraming, headers: HeaderFields = [:]) throws -> HTTPRequestHead {
        let target = try HTTPTarget(try #require(URL(string: "http://example.com/up")))
        let request = Request(url: target.url, method: "PUT", headers: headers)
        return target.requestHead(for: request, defaultHeaders: [:], framing: framing)
    }

    @Test("the head carries the framing once; the caller's framing fields are ignored")
    func headFields() throws {
        let own: HeaderFields = ["Content-Length": "9", "Transfer-Encoding": "gzip", "Expect": "100-continue"]
        let big = try Self.head(RequestFraming(method: "PUT", bodyLength: .some(Self.mib * 2), expect: ["100-continue"], threshold: Self.mib),
                                headers: own)
        #expect(big.headers["Content-Length"] == ["\(Self.mib * 2)"])
        #expect(big.headers["Transfer-Encoding"].isEmpty)
        #expect(big.headers["Expect"] == ["100-continue"])

        let chunked = try Self.head(RequestFraming(method: "PUT", bodyLength: .some(nil), expect: [], threshold: Self.mib))
        #expect(chunked.headers["Transfer-Encoding"] == ["chunked"])
        #expect(chunked.headers["Content-Length"].isEmpty)
        #expect(chunked.headers["Expect"] == ["100-continue"])

        let off = try Self.head(RequestFraming(method: "PUT", bodyLength: .some(nil), expect: [""], threshold: Self.mib),
                                headers: ["Expect": ""])
        #expect(off.headers["Expect"].isEmpty)

        let custom = try Self.head(RequestFraming(method: "PUT", bodyLength: .some(3), expect: ["x-y"], threshold: Self.mib),
                                   headers: ["Expect": "x-y"])
        #expect(custom.headers["Expect"] == ["x-y"])
        #expect(custom.headers["Content-Length"] == ["3"])
    }

    @Test("without a framing, an in-memory body is announced by its length, never with Expect")
    func defaultFraming() throws {
        let target = try HTTPTarget(try #require(URL(string: "http://example.com/up")))
        let request = Request(url: target.url, method: "POST", body: [UInt8](repeating: 1, count: 2 << 20))
        let head = target.requestHead(for: request, defaultHeaders: [:])
        #expect(head.headers["Content-Length"] == ["\(2 << 20)"])
        #expect(head.headers["Expect"].isEmpty)
    }
}
