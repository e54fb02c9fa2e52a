#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What to fetch and how: the counterpart of NSURLRequest, as a value.
///
/// Headers set here are sent as given and win over the session's default headers. `Host`,
/// `Content-Length`, `Transfer-Encoding` and `Connection` are managed by the engine and ignored
/// when set here. `Expect: 100-continue` is added for bodies of
/// ``SessionConfiguration/expectContinueThreshold`` bytes and more (and of unknown length); an
/// `Expect` field set here with an empty value sends none (curl's `-H 'Expect:'`).
public struct Request: Sendable, Equatable {
    /// The request method; `GET` unless set.
    public var method: String
    /// The URL to fetch (NSURLRequest's `URL`).
    public var url: URL
    /// Header fields sent as given, in order; they win over
    /// ``SessionConfiguration/defaultHeaders`` of the same name.
    public var headers: HeaderFields
    /// The body (for `POST`, `PUT` ...): bytes, a file, a stream or a multipart form, sent with
    /// `Content-Length` when its length is known and chunked otherwise (see ``RequestBody``);
    /// nil sends none. NSURLRequest's `HTTPBody` / `HTTPBodyStream`.
    public var body: RequestBody?
    /// Overrides the session's idle timeout (seconds without a byte) for this request.
    public var timeoutInterval: Duration?
    /// Send and store cookies for this request (NSURLRequest's `HTTPShouldHandleCookies`).
    public var shouldHandleCookies = true
    /// The credential for this request's own origin (like a `user:password@` in the URL, which
    /// it overrides): answers challenges there, never sent to another origin.
    public var credential: Credential?
    /// How copies the caller already has are treated (NSURLRequest's `cachePolicy`).
    public var cachePolicy = CachePolicy.useProtocolCachePolicy

    /// A request for `url`. Defaults: `GET`, no header fields, no body, the session's idle timeout.
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body: RequestBody? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = nil
    }

    /// A request whose body is `bytes` (``RequestBody/data(_:)``).
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body bytes: [UInt8]) {
        self.init(url: url, method: method, headers: headers, body: .data(bytes))
    }

    /// A request whose body is `data` (``RequestBody/data(_:)``).
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body data: Data) {
        self.init(url: url, method: method, headers: headers, body: .data(Array(data)))
    }

    /// The body when it is bytes in memory (NSURLRequest's `HTTPBody`); setting it replaces
    /// any body with these bytes (nil removes the body).
    public var httpBody: [UInt8]? {
        get {
            if case .data(let bytes) = body { return bytes }
            return nil
        }
        set { body = newValue.map { .data($0) } }
    }

    /// A GET or HEAD without a body: its answer can be continued with a range, split into
    /// segments and kept across runs. The answer to anything else (an upload, a POST, a DELETE)
    /// is saved from zero by every attempt and never left behind as a part to continue.
    var isPlainFetch: Bool {
        let method = self.method.uppercased()
        return body == nil && (method == "GET" || method == "HEAD")
    }

    /// Parses `string` as an absolute URL. Returns nil when it is not one.
    public init?(string: String) {
        guard let url = URL(string: string), url.scheme != nil else { return nil }
        self.init(url: url)
    }
}
