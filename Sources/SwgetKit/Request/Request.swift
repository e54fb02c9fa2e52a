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
    public var method: String {
        get { storage.fields.method }
        _modify { makeUnique(); yield &storage.fields.method }
    }
    /// The URL to fetch (NSURLRequest's `URL`).
    public var url: URL {
        get { storage.fields.url }
        _modify { makeUnique(); yield &storage.fields.url }
    }
    /// Header fields sent as given, in order; they win over
    /// ``SessionConfiguration/defaultHeaders`` of the same name.
    public var headers: HeaderFields {
        get { storage.fields.headers }
        _modify { makeUnique(); yield &storage.fields.headers }
    }
    /// The body (for `POST`, `PUT` ...): bytes, a file, a stream or a multipart form, sent with
    /// `Content-Length` when its length is known and chunked otherwise (see ``RequestBody``);
    /// nil sends none. NSURLRequest's `HTTPBody` / `HTTPBodyStream`.
    public var body: RequestBody? {
        get { storage.fields.body }
        _modify { makeUnique(); yield &storage.fields.body }
    }
    /// Overrides the session's idle timeout (seconds without a byte) for this request.
    public var timeoutInterval: Duration? {
        get { storage.fields.timeoutInterval }
        _modify { makeUnique(); yield &storage.fields.timeoutInterval }
    }
    /// Send and store cookies for this request (NSURLRequest's `HTTPShouldHandleCookies`).
    public var shouldHandleCookies: Bool {
        get { storage.fields.shouldHandleCookies }
        _modify { makeUnique(); yield &storage.fields.shouldHandleCookies }
    }
    /// The credential for this request's own origin (like a `user:password@` in the URL, which
    /// it overrides): answers challenges there, never sent to another origin.
    public var credential: Credential? {
        get { storage.fields.credential }
        _modify { makeUnique(); yield &storage.fields.credential }
    }
    /// How copies the caller already has are treated (NSURLRequest's `cachePolicy`).
    public var cachePolicy: CachePolicy {
        get { storage.fields.cachePolicy }
        _modify { makeUnique(); yield &storage.fields.cachePolicy }
    }

    /// The fields behind one reference, copied on write like an Array's: a request is passed
    /// and kept at every step of a task, and a copy is one retain instead of about 190 bytes
    /// and seven.
    private var storage: Storage

    private struct Fields: Sendable, Equatable {
        var method: String
        var url: URL
        var headers: HeaderFields
        var body: RequestBody?
        var timeoutInterval: Duration?
        var shouldHandleCookies = true
        var credential: Credential?
        var cachePolicy = CachePolicy.useProtocolCachePolicy
    }

    /// Mutated only while uniquely referenced (``makeUnique()``), so never while shared
    /// between threads, and never while another access is under way: the dynamic exclusivity
    /// check (about 60 instructions a read) has nothing to catch.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
    }

    /// Equal when every field is.
    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// A request for `url`. Defaults: `GET`, no header fields, no body, the session's idle timeout.
    public init(url: URL, method: String = "GET", headers: HeaderFields = [:], body: RequestBody? = nil) {
        storage = Storage(Fields(method: method, url: url, headers: headers, body: body))
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
        let method = sentMethod
        return body == nil && (method == "GET" || method == "HEAD")
    }

    /// ``method`` in upper case, as it is sent: the same string, not a copy, when it already
    /// is (every request but a hand-typed `-X get`; this is read several times per request).
    var sentMethod: String { Self.uppercased(method: method) }

    /// `method.uppercased()`, without the copy when nothing changes.
    static func uppercased(method: String) -> String {
        let isUpper = method.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) }
        return isUpper ? method : method.uppercased()
    }

    /// Parses `string` as an absolute URL. Returns nil when it is not one.
    public init?(string: String) {
        guard let url = URL(string: string), url.scheme != nil else { return nil }
        self.init(url: url)
    }
}
