#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

enum URLForTests {
    static func make(_ s: String) -> URL {
        guard let url = URL(string: s) else { fatalError("bad test URL \(s)") }
        return url
    }
}

@Suite("Redirect rules (RFC 9110 §15.4)")
struct RedirectPolicyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let from: String
        let method: String
        let status: Int
        let location: String
        let to: String
        let newMethod: String
        let keepsBody: Bool
        var testDescription: String { "\(status) \(method) \(from) -> \(location)" }
    }

    static let cases: [Case] = [
        Case(from: "http://a/x/y", method: "GET", status: 301, location: "/z", to: "http://a/z", newMethod: "GET", keepsBody: true),
        Case(from: "http://a/x/y", method: "GET", status: 302, location: "z", to: "http://a/x/z", newMethod: "GET", keepsBody: true),
        Case(from: "http://a/x/y", method: "GET", status: 302, location: "../up", to: "http://a/up", newMethod: "GET", keepsBody: true),
        Case(from: "http://a/x/y?q=1", method: "GET", status: 302, location: "?q=2", to: "http://a/x/y?q=2", newMethod: "GET", keepsBody: true),
        Case(from: "https://a/x", method: "GET", status: 307, location: "//b.example/p", to: "https://b.example/p", newMethod: "GET", keepsBody: true),
        Case(from: "http://a/x", method: "GET", status: 308, location: "https://a/x", to: "https://a/x", newMethod: "GET", keepsBody: true),
        Case(from: "http://a/x", method: "POST", status: 301, location: "/y", to: "http://a/y", newMethod: "GET", keepsBody: false),
        Case(from: "http://a/x", method: "POST", status: 302, location: "/y", to: "http://a/y", newMethod: "GET", keepsBody: false),
        Case(from: "http://a/x", method: "POST", status: 303, location: "/y", to: "http://a/y", newMethod: "GET", keepsBody: false),
        Case(from: "http://a/x", method: "PUT", status: 303, location: "/y", to: "http://a/y", newMethod: "GET", keepsBody: false),
        Case(from: "http://a/x", method: "HEAD", status: 303, location: "/y", to: "http://a/y", newMethod: "HEAD", keepsBody: true),
        Case(from: "http://a/x", method: "POST", status: 307, location: "/y", to: "http://a/y", newMethod: "POST", keepsBody: true),
        Case(from: "http://a/x", method: "POST", status: 308, location: "/y", to: "http://a/y", newMethod: "POST", keepsBody: true),
        Case(from: "http://a/x", method: "GET", status: 302, location: "/a b/ü.txt", to: "http://a/a%20b/%C3%BC.txt", newMethod: "GET", keepsBody: true),
        Case(from: "http://a:8080/x", method: "GET", status: 302, location: "  /y  ", to: "http://a:8080/y", newMethod: "GET", keepsBody: true),
    ]

    @Test(arguments: cases)
    func follows(_ c: Case) throws {
        var request = Request(url: URLForTests.make(c.from), method: c.method, body: [1, 2, 3])
        request.headers.add("Content-Type", "application/x-www-form-urlencoded")
        let next = try RedirectPolicy.nextRequest(after: request, status: c.status, location: c.location)
        #expect(next.url.absoluteString == c.to)
        #expect(next.method == c.newMethod)
        #expect((next.body != nil) == c.keepsBody)
        #expect(next.headers.contains("Content-Type") == c.keepsBody)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://a/x", "data:text/plain,hi", "javascript:alert(1)", "mailto:a@b", "http://"])
    func refusesNonNetworkTargets(_ location: String) {
        let request = Request(url: URLForTests.make("http://a/x"))
        #expect(throws: SessionError.badRedirect) {
            try RedirectPolicy.nextRequest(after: request, status: 302, location: location)
        }
    }

    @Test func missingLocationIsAnError() {
        let request = Request(url: URLForTests.make("http://a/x"))
        #expect(throws: SessionError.badRedirect) { try RedirectPolicy.nextRequest(after: request, status: 301, location: nil) }
        #expect(throws: SessionError.badRedirect) { try RedirectPolicy.nextRequest(after: request, status: 301, location: "") }
    }

    @Test func credentialsDroppedAcrossOrigins() throws {
        var request = Request(url: URLForTests.make("http://a/x"))
        request.headers.add("Authorization", "Basic abc")
        request.headers.add("Cookie", "s=1")
        request.headers.add("X-Custom", "kept")
        let same = try RedirectPolicy.nextRequest(after: request, status: 302, location: "http://a:80/y")
        #expect(same.headers["Authorization"] == "Basic abc")
        #expect(same.headers["Cookie"] == "s=1")
        for target in ["http://b/y", "https://a/y", "http://a:8080/y"] {
            let other = try RedirectPolicy.nextRequest(after: request, status: 302, location: target)
            #expect(other.headers["Authorization"] == nil, "\(target)")
            #expect(other.headers["Cookie"] == nil, "\(target)")
            #expect(other.headers["X-Custom"] == "kept")
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectStatuses(_ status: Int) { #expect(RedirectPolicy.isRedirect(status: status)) }

    @Test(arguments: [200, 300, 304, 305, 306, 309, 400])
    func nonRedirectStatuses(_ status: Int) { #expect(!RedirectPolicy.isRedirect(status: status)) }

    @Test func chainCountsHopsAndDetectsLoops() throws {
        var chain = RedirectChain(limit: 2, start: URLForTests.make("http://a/1"))
        try chain.advance(to: URLForTests.make("http://a/2"))
        try chain.advance(to: URLForTests.make("http://a/3"))
        #expect(throws: SessionError.tooManyRedirects) { try chain.advance(to: URLForTests.make("http://a/4")) }

        var loop = RedirectChain(limit: 20, start: URLForTests.make("http://a/1"))
        try loop.advance(to: URLForTests.make("http://a/2"))
        #expect(throws: SessionError.redirectLoop) { try loop.advance(to: URLForTests.make("http://a/1#frag")) }

        var none = RedirectChain(limit: 0, start: URLForTests.make("http://a/1"))
        #expect(throws: SessionError.tooManyRedirects) { try none.advance(to: URLForTests.make("http://a/2")) }
    }
}
