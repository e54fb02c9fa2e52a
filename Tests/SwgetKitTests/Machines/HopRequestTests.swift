#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// The one builder of every hop's request: the origin rule (credentials and cookies only at the
/// original origin: scheme, host and port), the body rule, and header changes of a redirect
/// delegate kept for their hop only.
@Suite("Hop requests (pure)")
struct HopRequestTests {
    static let originURL = "https://a.example/dir/file"
    static let secrets: [(String, String)] = [("Authorization", "Basic dTpw"), ("Cookie", "id=1"), ("Proxy-Authorization", "Basic cDpw")]

    static func original(_ url: String = originURL, method: String = "GET", body: [UInt8]? = nil,
                         extra: [(String, String)] = []) -> Request {
        var headers = HeaderFields(secrets + [("Accept", "*/*"), ("X-Custom", "1")] + extra)
        if body != nil { headers.add("Content-Type", "application/json") }
        return Request(url: URL(string: url)!, method: method, headers: headers, body: body.map { .data($0) })
    }

    static func hasSecrets(_ request: Request) -> [Bool] {
        secrets.map { request.headers.contains($0.0) }
    }

    // MARK: - the origin rule, target by target

    struct OriginCase: CustomTestStringConvertible, Sendable {
        var original = HopRequestTests.originURL
        let target: String
        let kept: Bool
        var testDescription: String { "\(original) → \(target): \(kept ? "kept" : "dropped")" }
    }

    static let origins: [OriginCase] = [
        OriginCase(target: "https://a.example/dir/file", kept: true),
        OriginCase(target: "https://a.example/elsewhere?q=1", kept: true),
        OriginCase(target: "https://A.EXAMPLE/dir/file", kept: true),
        OriginCase(target: "HTTPS://a.example/dir/file", kept: true),
        OriginCase(target: "https://a.example:443/dir/file", kept: true),
        OriginCase(target: "https://user:pw@a.example/dir/file", kept: true),
        OriginCase(original: "http://a.example/f", target: "http://a.example:80/g", kept: true),
        OriginCase(original: "http://a.example:8080/f", target: "http://a.example:8080/g", kept: true),
        OriginCase(target: "http://a.example/dir/file", kept: false),
        OriginCase(target: "http://a.example:443/dir/file", kept: false),
        OriginCase(target: "https://a.example:8443/dir/file", kept: false),
        OriginCase(target: "https://b.example/dir/file", kept: false),
        OriginCase(target: "https://sub.a.example/dir/file", kept: false),
        OriginCase(target: "https://a.example.evil.test/dir/file", kept: false),
        OriginCase(target: "https://a.example./dir/file", kept: false),
        OriginCase(target: "https://127.0.0.1/dir/file", kept: false),
        OriginCase(target: "https://[::1]/dir/file", kept: false),
        OriginCase(original: "http://a.example:8080/f", target: "http://a.example/f", kept: false),
        OriginCase(original: "http://a.example:8080/f", target: "http://a.example:8081/f", kept: false),
    ]

    @Test(arguments: origins)
    func originRule(_ c: OriginCase) {
        let original = Self.original(c.original)
        let target = HopTarget(url: URL(string: c.target)!, method: "GET", sendsBody: false)
        let request = HopRequest.make(original: original, target: target)
        // Proxy-Authorization never goes to an origin, whichever: only a forward proxy gets it.
        #expect(Self.hasSecrets(request) == [c.kept, c.kept, false])
        #expect(request.url.absoluteString == c.target)
        // Other fields always travel.
        #expect(request.headers["Accept"] == "*/*" && request.headers["X-Custom"] == "1")
    }

    @Test("origin-bound fields are matched whatever their case, all copies")
    func caseInsensitiveNames() {
        let original = Request(url: URL(string: Self.originURL)!,
                               headers: HeaderFields([("authorization", "a"), ("COOKIE", "b"), ("Cookie", "c"), ("proxy-AUTHORIZATION", "d"),
                                                     ("Accept", "*/*")]))
        let request = HopRequest.make(original: original, target: HopTarget(url: URL(string: "https://b.example/")!, method: "GET", sendsBody: false))
        #expect(request.headers.count == 1)
        #expect(request.headers["Accept"] == "*/*")
    }

    // MARK: - every path that builds a request

    struct PathCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Builds the request from the original (https://a.example/dir/file).
        let build: @Sendable (Request) throws -> Request
        let kept: Bool
        var testDescription: String { name }
    }

    static func redirect(_ request: Request, _ status: Int, to location: String) throws -> HopTarget {
        try RedirectPolicy.nextTarget(after: HopTarget(request), status: status, location: location)
    }

    static let range = [(name: "Range", value: "bytes=100-"), (name: "If-Range", value: "\"v1\"")]

    static let paths: [PathCase] = [
        PathCase(name: "first hop", build: { HopRequest.make(original: $0, target: HopTarget($0)) }, kept: true),
        PathCase(name: "redirect within the origin", build: {
            HopRequest.make(original: $0, target: try redirect($0, 302, to: "/other"))
        }, kept: true),
        PathCase(name: "redirect to another host", build: {
            HopRequest.make(original: $0, target: try redirect($0, 302, to: "https://cdn.example/f"))
        }, kept: false),
        PathCase(name: "redirect to http on the same host", build: {
            HopRequest.make(original: $0, target: try redirect($0, 301, to: "http://a.example/dir/file"))
        }, kept: false),
        PathCase(name: "RedirectPolicy.nextRequest to another host", build: {
            try RedirectPolicy.nextRequest(after: $0, status: 307, location: "https://cdn.example/f")
        }, kept: false),
        PathCase(name: "two redirects: away, then back to the original origin", build: { original in
            let away = try redirect(original, 302, to: "https://cdn.example/f")
            let back = try RedirectPolicy.nextTarget(after: away, status: 302, location: "https://a.example/again")
            return HopRequest.make(original: original, target: back)
        }, kept: true),
        PathCase(name: "retry at a redirected host, with a resume range", build: {
            HopRequest.make(original: $0, target: try redirect($0, 302, to: "https://cdn.example/f"), additions: range)
        }, kept: false),
        PathCase(name: "resume at the final URL of an earlier run", build: { original in
            var target = HopTarget(original)
            target.url = URL(string: "https://mirror.example/file")!
            return HopRequest.make(original: original, target: target, additions: range)
        }, kept: false),
        PathCase(name: "resume at a final URL on the original origin", build: { original in
            var target = HopTarget(original)
            target.url = URL(string: "https://a.example/moved/file")!
            return HopRequest.make(original: original, target: target, additions: range)
        }, kept: true),
        PathCase(name: "segment range at a redirected host", build: {
            HopRequest.make(original: $0, target: try redirect($0, 303, to: "https://cdn.example/f"),
                            additions: [(name: "Range", value: "bytes=0-1048575")])
        }, kept: false),
        PathCase(name: "segment range at the original origin", build: {
            HopRequest.make(original: $0, target: HopTarget($0), additions: [(name: "Range", value: "bytes=0-1048575")])
        }, kept: true),
    ]

    @Test(arguments: paths)
    func everyPath(_ c: PathCase) throws {
        let request = try c.build(Self.original())
        // Proxy-Authorization never goes to an origin, whichever: only a forward proxy gets it.
        #expect(Self.hasSecrets(request) == [c.kept, c.kept, false])
    }

    @Test("additions replace fields of the same name and come last")
    func additionsReplace() {
        let original = Self.original(extra: [("Range", "bytes=0-"), ("range", "bytes=1-")])
        let request = HopRequest.make(original: original, target: HopTarget(original), additions: Self.range)
        #expect(request.headers.values(for: "Range") == ["bytes=100-"])
        #expect(request.headers["If-Range"] == "\"v1\"")
        #expect(Array(request.headers.suffix(2).map(\.name)) == ["Range", "If-Range"])
    }

    // MARK: - the body rule

    struct BodyCase: CustomTestStringConvertible, Sendable {
        let method: String
        let status: Int
        let method2: String
        let keepsBody: Bool
        var testDescription: String { "\(method) + \(status) → \(method2)\(keepsBody ? " with body" : "")" }
    }

    static let bodies: [BodyCase] = [
        BodyCase(method: "POST", status: 301, method2: "GET", keepsBody: false),
        BodyCase(method: "POST", status: 302, method2: "GET", keepsBody: false),
        BodyCase(method: "POST", status: 303, method2: "GET", keepsBody: false),
        BodyCase(method: "PUT", status: 303, method2: "GET", keepsBody: false),
        BodyCase(method: "POST", status: 307, method2: "POST", keepsBody: true),
        BodyCase(method: "PUT", status: 308, method2: "PUT", keepsBody: true),
        BodyCase(method: "PUT", status: 301, method2: "PUT", keepsBody: true),
        BodyCase(method: "PUT", status: 302, method2: "PUT", keepsBody: true),
        BodyCase(method: "PATCH", status: 302, method2: "PATCH", keepsBody: true),
        BodyCase(method: "PATCH", status: 303, method2: "GET", keepsBody: false),
        BodyCase(method: "DELETE", status: 307, method2: "DELETE", keepsBody: true),
        BodyCase(method: "POST", status: 308, method2: "POST", keepsBody: true),
    ]

    @Test(arguments: bodies)
    func bodyRule(_ c: BodyCase) throws {
        var original = Self.original(method: c.method, body: Array("{}".utf8))
        original.headers.add("Content-Encoding", "gzip")
        let request = HopRequest.make(original: original, target: try Self.redirect(original, c.status, to: "/next"))
        #expect(request.method == c.method2)
        #expect(request.httpBody == (c.keepsBody ? Array("{}".utf8) : nil))
        #expect(request.headers.contains("Content-Type") == c.keepsBody)
        #expect(request.headers.contains("Content-Encoding") == c.keepsBody)
        #expect(Self.hasSecrets(request) == [true, true, false])
    }

    @Test("a form sets its Content-Type with the boundary unless the request has one; a 303 drops both")
    func formContentType() throws {
        let form = try MultipartFormData(parts: [.value(name: "a", "1")], boundary: "XyZ")
        var original = Request(url: try #require(URL(string: Self.originURL)), method: "POST", body: .multipart(form))
        let first = HopRequest.make(original: original, target: HopTarget(original))
        #expect(first.headers.values(for: "Content-Type") == ["multipart/form-data; boundary=XyZ"])
        let after303 = HopRequest.make(original: original, target: try Self.redirect(original, 303, to: "/next"))
        #expect(!after303.headers.contains("Content-Type") && after303.body == nil)
        let after307 = HopRequest.make(original: original, target: try Self.redirect(original, 307, to: "/next"))
        #expect(after307.headers.values(for: "Content-Type") == ["multipart/form-data; boundary=XyZ"])
        original.headers.set("Content-Type", "multipart/related; boundary=XyZ")
        let own = HopRequest.make(original: original, target: HopTarget(original))
        #expect(own.headers.values(for: "Content-Type") == ["multipart/related; boundary=XyZ"])
    }

    @Test("after a 417 the request goes without Expect, the caller's own included")
    func withoutExpectation() throws {
        let original = Self.original(method: "PUT", body: [1], extra: [("Expect", "100-continue")])
        #expect(HopRequest.make(original: original, target: HopTarget(original)).headers.contains("Expect"))
        let refused = HopRequest.make(original: original, target: HopTarget(original), context: HopContext(withoutExpectation: true))
        #expect(!refused.headers.contains("Expect"))
    }

    // MARK: - what a redirect delegate changed

    static let cdn = "https://cdn.example/f"

    /// The request proposed for a redirect to `location`, and the delegate's version of it.
    static func delegated(to location: String = cdn, _ change: (inout Request) -> Void) throws -> (original: Request, target: HopTarget) {
        let original = Self.original()
        let proposed = HopRequest.make(original: original, target: try redirect(original, 302, to: location))
        var chosen = proposed
        change(&chosen)
        return (original, HopRequest.target(chosen: chosen, proposed: proposed))
    }

    @Test("a header the delegate adds is sent on its hop and its retries, not on the next hop")
    func delegateAddition() throws {
        let (original, target) = try Self.delegated { $0.headers.add("X-Token", "t") }
        #expect(target.delegateHeaders["X-Token"] == "t")
        #expect(target.delegateRemovals.isEmpty)
        #expect(HopRequest.make(original: original, target: target).headers["X-Token"] == "t")
        #expect(HopRequest.make(original: original, target: target, additions: Self.range).headers["X-Token"] == "t")
        let next = try RedirectPolicy.nextTarget(after: target, status: 302, location: "https://cdn.example/g")
        #expect(!HopRequest.make(original: original, target: next).headers.contains("X-Token"))
    }

    @Test("a header the delegate removes is left out of its hop only")
    func delegateRemoval() throws {
        let (original, target) = try Self.delegated(to: "/same-origin") { $0.headers.remove("accept") }
        #expect(target.delegateRemovals.count == 1 && target.delegateRemovals.first?.caseInsensitiveEquals("Accept") == true)
        #expect(!HopRequest.make(original: original, target: target).headers.contains("Accept"))
        let next = try RedirectPolicy.nextTarget(after: target, status: 302, location: "/third")
        #expect(HopRequest.make(original: original, target: next).headers["Accept"] == "*/*")
    }

    @Test("a changed value replaces the original's for its hop")
    func delegateChange() throws {
        let (original, target) = try Self.delegated { $0.headers.set("X-Custom", "2") }
        let request = HopRequest.make(original: original, target: target)
        #expect(request.headers.values(for: "X-Custom") == ["2"])
    }

    @Test("credentials the delegate adds at another origin are its choice and are sent")
    func delegateCredentials() throws {
        let (original, target) = try Self.delegated { $0.headers.set("Authorization", "Bearer cdn") }
        let request = HopRequest.make(original: original, target: target)
        #expect(request.headers.values(for: "Authorization") == ["Bearer cdn"])
        #expect(!request.headers.contains("Cookie"))
    }

    @Test("a delegate returning the proposal unchanged changes nothing")
    func delegateUnchanged() throws {
        let (original, target) = try Self.delegated { _ in }
        #expect(target.delegateHeaders.count == 0 && target.delegateRemovals.isEmpty)
        let request = HopRequest.make(original: original, target: target)
        #expect(request.url.absoluteString == Self.cdn && Self.hasSecrets(request) == [false, false, false])
    }

    @Test("the delegate's URL, method and body choice make the target")
    func delegateTarget() throws {
        let (_, target) = try Self.delegated {
            $0.url = URL(string: "https://elsewhere.example/x")!
            $0.method = "HEAD"
        }
        #expect(target.url.absoluteString == "https://elsewhere.example/x")
        #expect(target.method == "HEAD" && !target.sendsBody)
    }

    @Test("a multi-valued header the delegate changes is sent with all its values")
    func delegateMultiValue() throws {
        let (original, target) = try Self.delegated { $0.headers.add("X-Custom", "extra") }
        #expect(HopRequest.make(original: original, target: target).headers.values(for: "X-Custom") == ["1, extra"])
    }
}

extension HopRequestTests {
    /// The stores' context: cookies merged after the user's own, a stored credential that does
    /// not override the user's own Authorization, Proxy-Authorization only in absolute form.
    @Test func contextFromTheStores() throws {
        let original = try #require(Request(string: "https://a.example/f"))
        var target = HopTarget(original)
        let plain = HopRequest.make(original: original, target: target,
                                    context: HopContext(cookie: "s=2", authorization: ("Authorization", "Basic eA=="),
                                                        viaForwardProxy: false, proxyAuthorization: "Basic cA=="))
        #expect(plain.headers["Cookie"] == "s=2")
        #expect(plain.headers["Authorization"] == "Basic eA==")
        #expect(plain.headers["Proxy-Authorization"] == nil)
        var own = original
        own.headers.set("Cookie", "mine=1")
        own.headers.set("Authorization", "Bearer t")
        let merged = HopRequest.make(original: own, target: HopTarget(own),
                                     context: HopContext(cookie: "s=2", authorization: ("Authorization", "Basic eA=="),
                                                         viaForwardProxy: true, proxyAuthorization: "Basic cA=="))
        #expect(merged.headers["Cookie"] == "mine=1; s=2")
        #expect(merged.headers["Authorization"] == "Bearer t")
        #expect(merged.headers["Proxy-Authorization"] == "Basic cA==")
        target.url = try #require(URL(string: "https://b.example/f"))
        let away = HopRequest.make(original: own, target: target, context: HopContext(cookie: "b=3"))
        #expect(away.headers["Cookie"] == "b=3", "the store's cookies for b.example, never the user's own")
        #expect(away.headers["Authorization"] == nil)
    }
}

/// An HSTS upgrade of the original URL (http → https at the same host) is the same resource:
/// the user's credentials and cookies go to the upgraded URL, and still not to another origin.
@Suite("Hop requests after an HSTS upgrade (pure)")
struct HopRequestHSTSTests {
    static let upgrade: @Sendable (URL) -> URL? = { url in
        guard url.scheme == "http", url.host == "a.example",
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = "https"
        return components.url
    }

    @Test func theUpgradedOriginalKeepsItsCredentials() throws {
        let original = HopRequestTests.original("http://a.example/dir/file")
        var exchange = Exchange(original: original, maxRedirects: 5, upgrade: Self.upgrade)
        guard case .send(let request) = exchange.start() else { Issue.record("no request"); return }
        #expect(request.url.absoluteString == "https://a.example/dir/file")
        // Proxy-Authorization goes only to a proxy, never to an origin.
        #expect(HopRequestTests.hasSecrets(request) == [true, true, false])
    }

    @Test func aRedirectFromTheUpgradedURLToAnotherHostDropsThem() throws {
        let original = HopRequestTests.original("http://a.example/dir/file")
        var exchange = Exchange(original: original, maxRedirects: 5, upgrade: Self.upgrade)
        _ = exchange.start()
        let response = Response(url: URL(string: "https://a.example/dir/file")!, statusCode: 302, reasonPhrase: "Found",
                                httpVersion: "HTTP/1.1", headers: HeaderFields([("Location", "https://b.example/x")]),
                                expectedContentLength: 0)
        guard case .decideRedirect(_, let proposed, _) = exchange.headReceived(response) else { Issue.record("no redirect"); return }
        #expect(HopRequestTests.hasSecrets(proposed) == [false, false, false])
    }
}
