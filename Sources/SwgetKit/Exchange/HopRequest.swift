#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where one hop of a resource goes: the URL, the method and whether the body is sent, as
/// redirects have shaped them. The headers are not part of it: they are derived from the
/// original request for every hop by ``HopRequest/make(original:target:additions:)``.
struct HopTarget: Sendable, Equatable {
    var url: URL
    var method: String
    /// False once a redirect turned the request into a GET without a body (303, or POST after
    /// 301/302).
    var sendsBody: Bool
    /// Headers a redirect delegate set on the request it returned, for this hop (and its
    /// retries) only: the next redirect starts again from the original request.
    var delegateHeaders = HeaderFields()
    /// Header names the redirect delegate removed from the proposed request, for this hop only.
    var delegateRemovals: [String] = []

    /// The first hop: the original request as the caller made it.
    init(_ request: Request) {
        url = request.url
        method = request.method
        sendsBody = request.body != nil
    }

    init(url: URL, method: String, sendsBody: Bool) {
        self.url = url
        self.method = method
        self.sendsBody = sendsBody
    }
}

/// What the session's stores give one hop's request: computed for the hop's URL just before it
/// is sent, merged by ``HopRequest/make(original:target:additions:context:)``.
struct HopContext: Sendable {
    /// The `Cookie` value from the cookie storage for this URL.
    var cookie: String?
    /// The credential's `Authorization` (or, for a retry after a 407, `Proxy-Authorization`)
    /// field: from the credential storage, or the answer to a challenge.
    var authorization: (field: String, value: String)?
    /// True when the request goes to a proxy in absolute form (plain http through an http
    /// proxy): `Proxy-Authorization` then belongs on it. Otherwise it never leaves with a
    /// request to an origin.
    var viaForwardProxy = false
    /// The proxy's `Proxy-Authorization`, for a request in absolute form.
    var proxyAuthorization: String?
    /// The server refused `Expect: 100-continue` with 417: the request goes without any `Expect`
    /// field (RFC 9110 §10.1.1), the caller's own included.
    var withoutExpectation = false

    init(cookie: String? = nil, authorization: (field: String, value: String)? = nil, viaForwardProxy: Bool = false,
         proxyAuthorization: String? = nil, withoutExpectation: Bool = false) {
        self.cookie = cookie
        self.authorization = authorization
        self.viaForwardProxy = viaForwardProxy
        self.proxyAuthorization = proxyAuthorization
        self.withoutExpectation = withoutExpectation
    }
}

/// The one place where the request for every hop of every task is built: the first request,
/// each redirect, each retry, each resumed or ranged request, each segment of a split download.
/// No code path sends a request derived from the original with only its URL swapped.
///
/// Origin rule: the fields that carry credentials or state of the original origin
/// (`Authorization`, `Cookie`, `Proxy-Authorization`) are sent only while the hop's origin
/// (scheme, host, port) is the original request's. A redirect to another origin, a retry or a
/// resume at that origin, and every segment fetched there go without them, whichever path
/// built the request.
enum HopRequest {
    /// Header fields bound to the original request's origin.
    static let originBoundFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The stored `name=value` pairs whose name the user's own `Cookie` field does not set,
    /// each prefixed with "; ": the user's value for a name wins, as in curl.
    static func cookiesNotNamedIn(_ own: String, from stored: String) -> String {
        func name(_ pair: Substring) -> Substring {
            let trimmed = pair.drop { $0 == " " }
            return trimmed.prefix { $0 != "=" }
        }
        let taken = Set(own.split(separator: ";").map(name))
        return stored.split(separator: ";").filter { !taken.contains(name($0)) }
            .map { "; " + $0.drop { $0 == " " } }.joined()
    }

    /// The request for `target`, built from `original`: the original's fields (less the
    /// origin-bound ones at another origin, and less the body when the target sends none),
    /// then what the redirect delegate changed for this hop, then `additions` (range and
    /// validator fields of a resume, a segment's range), which replace fields of the same name.
    ///
    /// A body that implies a `Content-Type` (a form, with its boundary) sets it unless the
    /// request has one; after a 417 the `Expect` field goes (``HopContext/withoutExpectation``).
    ///
    /// `context` adds what the stores know for this hop: stored cookies (merged after the
    /// user's own `Cookie` field, which only the original origin gets), a credential (the
    /// user's own `Authorization` field wins at the original origin), and for a request in
    /// absolute form through a proxy, `Proxy-Authorization` — which no request to an origin
    /// ever carries.
    static func make(original: Request, target: HopTarget, additions: [(name: String, value: String)] = [],
                     context: HopContext = HopContext()) -> Request {
        var request = original
        // Each field is stored back only when it changed: the request shares its storage with
        // the original until then, and a first hop usually changes nothing.
        let sameURL = original.url == target.url
        if !sameURL { request.url = target.url }
        if request.method != target.method { request.method = target.method }
        var headers = original.headers
        if !target.sendsBody {
            if request.body != nil { request.body = nil }
            headers.remove("Content-Type")
            headers.remove("Content-Encoding")
        } else if !headers.contains("Content-Type"), let type = request.body?.impliedContentType {
            headers.set("Content-Type", type)  // a form's, with its boundary
        }
        if context.withoutExpectation { headers.remove("Expect") }
        // The same URL is the same origin (most hops): no URL taken apart twice per request.
        if !sameURL && !Origin(original.url).isSame(as: Origin(target.url)) {
            for name in originBoundFields { headers.remove(name) }
        }
        for field in original.cachePolicy.fields where !headers.contains(field.name) {
            headers.set(field.name, field.value)
        }
        for name in target.delegateRemovals { headers.remove(name) }
        for field in target.delegateHeaders { headers.set(field.name, field.value) }
        for field in additions { headers.set(field.name, field.value) }
        if let stored = context.cookie, !stored.isEmpty {
            let own = headers.values(for: "Cookie").joined(separator: "; ")
            headers.set("Cookie", own.isEmpty ? stored : own + Self.cookiesNotNamedIn(own, from: stored))
        }
        if let (field, value) = context.authorization, field.caseInsensitiveEquals("Proxy-Authorization") || !headers.contains(field) {
            headers.set(field, value)
        }
        if context.viaForwardProxy {
            if let value = context.proxyAuthorization, !headers.contains("Proxy-Authorization") {
                headers.set("Proxy-Authorization", value)
            }
        } else {
            headers.remove("Proxy-Authorization")
        }
        if !headers.sharesFields(with: original.headers) { request.headers = headers }
        return request
    }

    /// The target a redirect delegate asked for by returning `chosen` instead of `proposed`: its
    /// URL, method and body choice, and the header changes it made, kept for this hop only.
    static func target(chosen: Request, proposed: Request) -> HopTarget {
        var target = HopTarget(url: chosen.url, method: chosen.method, sendsBody: chosen.body != nil)
        for field in chosen.headers where proposed.headers.values(for: field.name) != chosen.headers.values(for: field.name) {
            if !target.delegateHeaders.contains(field.name) {
                target.delegateHeaders.set(field.name, chosen.headers.values(for: field.name).joined(separator: ", "))
            }
        }
        for field in proposed.headers where !chosen.headers.contains(field.name) && !target.delegateRemovals.contains(field.name) {
            target.delegateRemovals.append(field.name)
        }
        return target
    }
}
