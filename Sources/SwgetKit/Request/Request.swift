#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What to fetch and how: the counterpart of NSURLRequest, as a value.
///
/// Headers set here are sent as given and win over the session's default headers. `Host`,
/// `Content-Length` and `Connection` are managed by the engine and ignored when set here.
public struct Request: Sendable, Equatable {
    /// The request method; `GET` unless set.
    public var method: String
    /// The URL to fetch (NSURLRequest's `URL`).
    public var url: URL
    /// Header fields sent as given, in order; they win over
    /// ``SessionConfiguration/defaultHeaders`` of the same name.
    public var headers: HeaderFields
    /// A body sent with `Content-Length` (for `POST`, `PUT` ...); nil sends none.
    public var body: [UInt8]?
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
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body: [UInt8]? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = nil
    }

    /// Parses `string` as an absolute URL. Returns nil when it is not one.
    public init?(string: String) {
        guard let url = URL(string: string), url.scheme != nil else { return nil }
        self.init(url: url)
    }
}
