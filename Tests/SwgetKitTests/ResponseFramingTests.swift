import Testing
@testable import SwgetKit

@Suite("Response framing decisions (RFC 9112 §6.3)")
struct ResponseFramingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let method: String
        let status: Int
        let version: (Int, Int)
        let headers: [(String, String)]
        let body: ResponseFraming.Body?   // nil: the head is a protocol violation
        let keepAlive: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "42")], body: .length(42), keepAlive: true),
        Case(name: "zero length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "0")], body: .length(0), keepAlive: true),
        Case(name: "chunked", method: "GET", status: 200, version: (1, 1), headers: [("Transfer-Encoding", "chunked")], body: .chunked, keepAlive: true),
        Case(name: "chunked wins over length", method: "GET", status: 200, version: (1, 1),
             headers: [("Content-Length", "10"), ("Transfer-Encoding", "chunked")], body: .chunked, keepAlive: true),
        Case(name: "chunked not last", method: "GET", status: 200, version: (1, 1), headers: [("Transfer-Encoding", "chunked, gzip")], body: .untilClose, keepAlive: false),
        Case(name: "gzip, chunked", method: "GET", status: 200, version: (1, 1), headers: [("Transfer-Encoding", "gzip, Chunked")], body: .chunked, keepAlive: true),
        Case(name: "close-delimited", method: "GET", status: 200, version: (1, 1), headers: [], body: .untilClose, keepAlive: false),
        Case(name: "HEAD has no body", method: "HEAD", status: 200, version: (1, 1), headers: [("Content-Length", "1000")], body: ResponseFraming.Body.none, keepAlive: true),
        Case(name: "204", method: "GET", status: 204, version: (1, 1), headers: [], body: ResponseFraming.Body.none, keepAlive: true),
        // A 204 announcing a body it must not have: whatever follows is not the next response.
        Case(name: "204 with a length", method: "GET", status: 204, version: (1, 1), headers: [("Content-Length", "15")], body: ResponseFraming.Body.none, keepAlive: false),
        Case(name: "204 with length 0", method: "GET", status: 204, version: (1, 1), headers: [("Content-Length", " 0 ")], body: ResponseFraming.Body.none, keepAlive: true),
        Case(name: "204 chunked", method: "GET", status: 204, version: (1, 1), headers: [("Transfer-Encoding", "chunked")], body: ResponseFraming.Body.none, keepAlive: false),
        Case(name: "204 to HEAD with a length", method: "HEAD", status: 204, version: (1, 1), headers: [("Content-Length", "15")], body: ResponseFraming.Body.none, keepAlive: true),
        Case(name: "304 with length", method: "GET", status: 304, version: (1, 1), headers: [("Content-Length", "99")], body: ResponseFraming.Body.none, keepAlive: true),
        Case(name: "1xx", method: "GET", status: 103, version: (1, 1), headers: [], body: ResponseFraming.Body.none, keepAlive: true),
        Case(name: "Connection: close", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "5"), ("Connection", "close")], body: .length(5), keepAlive: false),
        Case(name: "Connection tokens", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "5"), ("Connection", "Upgrade, Close")], body: .length(5), keepAlive: false),
        Case(name: "HTTP/1.0 default close", method: "GET", status: 200, version: (1, 0), headers: [("Content-Length", "5")], body: .length(5), keepAlive: false),
        Case(name: "HTTP/1.0 keep-alive", method: "GET", status: 200, version: (1, 0), headers: [("Content-Length", "5"), ("Connection", "Keep-Alive")], body: .length(5), keepAlive: true),
        Case(name: "repeated equal lengths", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "7, 7")], body: .length(7), keepAlive: true),
        Case(name: "two equal length fields", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "7"), ("Content-Length", "7")], body: .length(7), keepAlive: true),
        Case(name: "conflicting lengths", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "7"), ("Content-Length", "8")], body: nil, keepAlive: false),
        Case(name: "negative length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "-1")], body: nil, keepAlive: false),
        Case(name: "garbage length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "12abc")], body: nil, keepAlive: false),
        Case(name: "huge length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "99999999999999999999999")], body: nil, keepAlive: false),
        Case(name: "empty length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "")], body: nil, keepAlive: false),
        Case(name: "length with white space", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "\t 10240 ")], body: .length(10240), keepAlive: true),
        Case(name: "18-digit length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "999999999999999999")], body: .length(999_999_999_999_999_999), keepAlive: true),
        Case(name: "19-digit length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "1000000000000000000")], body: nil, keepAlive: false),
        Case(name: "plus-signed length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "+5")], body: nil, keepAlive: false),
        Case(name: "blank length", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "  ")], body: nil, keepAlive: false),
        Case(name: "close among spaced tokens", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "5"), ("Connection", " te ,\tCLOSE\t")], body: .length(5), keepAlive: false),
        Case(name: "a token that only starts with close", method: "GET", status: 200, version: (1, 1), headers: [("Content-Length", "5"), ("Connection", "closed, xclose")], body: .length(5), keepAlive: true),
        Case(name: "Kelvin sign is not K", method: "GET", status: 200, version: (1, 0), headers: [("Content-Length", "5"), ("Connection", "\u{212A}eep-Alive")], body: .length(5), keepAlive: false),
        Case(name: "HTTP/1.0 keep-alive in a second field", method: "GET", status: 200, version: (1, 0), headers: [("Content-Length", "5"), ("Connection", "te"), ("connection", ", keep-alive,")], body: .length(5), keepAlive: true),
        Case(name: "length on error status", method: "GET", status: 404, version: (1, 1), headers: [("Content-Length", "3")], body: .length(3), keepAlive: true),
    ]

    @Test(arguments: cases)
    func framing(_ c: Case) throws {
        let headers = HeaderFields(c.headers)
        guard let expected = c.body else {
            #expect(throws: ResponseFraming.Violation.self) {
                try ResponseFraming(requestMethod: c.method, status: c.status, versionMajor: c.version.0,
                                    versionMinor: c.version.1, headers: headers)
            }
            return
        }
        let framing = try ResponseFraming(requestMethod: c.method, status: c.status, versionMajor: c.version.0,
                                          versionMinor: c.version.1, headers: headers)
        #expect(framing.body == expected)
        #expect(framing.keepAlive == c.keepAlive)
    }

    @Test func expectedLength() throws {
        let length = try ResponseFraming(requestMethod: "GET", status: 200, versionMajor: 1, versionMinor: 1,
                                         headers: ["Content-Length": "10"])
        #expect(length.expectedLength == 10)
        let chunked = try ResponseFraming(requestMethod: "GET", status: 200, versionMajor: 1, versionMinor: 1,
                                          headers: ["Transfer-Encoding": "chunked"])
        #expect(chunked.expectedLength == nil)
        let head = try ResponseFraming(requestMethod: "HEAD", status: 200, versionMajor: 1, versionMinor: 1,
                                       headers: ["Content-Length": "10"])
        #expect(head.expectedLength == 0)
    }
}

@Suite("Header fields")
struct HeaderFieldsTests {
    @Test func caseInsensitiveLookupKeepsOrder() {
        var fields: HeaderFields = ["Content-Type": "text/html"]
        fields.add("Set-Cookie", "a=1")
        fields.add("set-cookie", "b=2")
        #expect(fields["content-type"] == "text/html")
        #expect(fields.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        fields.set("Content-TYPE", "text/plain")
        #expect(fields.values(for: "content-type") == ["text/plain"])
        fields.remove("set-cookie")
        #expect(fields.count == 1)
    }

    @Test func removingAnAbsentFieldLeavesACopyShared() {
        let original: HeaderFields = ["Accept": "*/*", "Content-Type": "text/plain"]
        var copy = original
        copy.remove("Content-Encoding")
        copy.remove("expect")
        #expect(copy.sharesFields(with: original))
        #expect(copy == original)
        copy.remove("content-type")
        #expect(!copy.sharesFields(with: original))
        #expect(copy == ["Accept": "*/*"])
        #expect(original.count == 2)
    }

    @Test(arguments: [("GET", "GET"), ("get", "GET"), ("PoSt", "POST"), ("M-SEARCH", "M-SEARCH"), ("", ""),
                      ("\u{E9}t\u{E9}", "\u{C9}T\u{C9}"), ("OPTION\u{17F}", "OPTIONS")])
    func methodsAreSentInUpperCase(_ method: String, _ sent: String) {
        let request = Request(url: URLForTests.make("http://h/x"), method: method)
        #expect(request.sentMethod == sent)
        #expect(request.sentMethod == method.uppercased())
    }

    @Test(arguments: [("Accept", "accept", true), ("X-A", "x-b", false), ("Ab", "AB", true), ("a[", "A{", false), ("", "", true)])
    func caseInsensitiveEquals(_ a: String, _ b: String, _ equal: Bool) {
        #expect(a.caseInsensitiveEquals(b) == equal)
    }

    @Test(arguments: [("close", [("Connection", "close")], true), ("close", [("Connection", "Keep-Alive, Close")], true),
                      ("close", [("Connection", "closer")], false), ("close", [("Connection", "")], false),
                      ("close", [("Proxy-Connection", "close")], false), ("close", [], false),
                      ("chunked", [("Transfer-Encoding", "gzip,,\tchunked ")], true), ("a b", [("X", "a b")], true),
                      ("ü", [("X", "Ü, ü")], true)])
    func tokensAreFoundInPlace(_ token: String, _ fields: [(String, String)], _ found: Bool) {
        let name = token == "chunked" ? "Transfer-Encoding" : token == "close" ? "connection" : "x"
        #expect(HeaderFields(fields).containsToken(token, in: name) == found)
    }

    @Test func responseMediaTypeAndCharset() {
        let url = URLForTests.make("http://h/x")
        let r = Response(url: url, statusCode: 200, headers: ["Content-Type": "Text/HTML; Charset=\"UTF-8\""], expectedContentLength: nil)
        #expect(r.mimeType == "text/html")
        #expect(r.textEncodingName == "utf-8")
        let none = Response(url: url, statusCode: 200, headers: [:], expectedContentLength: nil)
        #expect(none.mimeType == nil && none.textEncodingName == nil)
    }

    @Test(arguments: [("text/html", "text/html"), ("TEXT/Html ;q", "text/html"), (" application/x-gzip", "application/x-gzip"),
                      ("ÄPP/X", "äpp/x"), ("  ;x", nil), ("", nil)] as [(String, String?)])
    func mimeTypeIsLowercasedWhateverItsCase(_ header: String, _ expected: String?) {
        let r = Response(url: URLForTests.make("http://h/x"), statusCode: 200, headers: ["Content-Type": header], expectedContentLength: nil)
        #expect(r.mimeType == expected)
    }
}
