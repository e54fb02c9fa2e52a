/// How a ``Session`` behaves: an immutable value copied into the session when it is created
/// (NSURLSessionConfiguration's role). Changing a configuration after the session exists has no
/// effect on that session.
public struct SessionConfiguration: Sendable {
    /// The flavour of session, as in NSURLSessionConfiguration.
    public enum Kind: Sendable, Equatable {
        /// The process-wide stores: ``CookieStorage/shared``, ``CredentialStorage/shared`` and
        /// ``HSTSStore/shared``, which every default and background session sees.
        case `default`
        /// Private stores in memory, seen by no other session and never written anywhere; no
        /// state on disk except the bodies of download tasks.
        case ephemeral
        /// The shared stores, and download state that outlives the process: `NAME.swget` beside
        /// each `NAME.part`, so a new session with the same identifier continues the download.
        case background(identifier: String)
    }

    /// The background identifier, when this is a background configuration.
    public var backgroundIdentifier: String? {
        if case .background(let identifier) = kind { return identifier }
        return nil
    }

    /// Default, ephemeral or background: which stores the session shares and whether download
    /// state outlives the process.
    public var kind: Kind

    /// Seconds allowed to establish a TCP (and TLS) connection to one host, all addresses included.
    public var connectTimeout: Duration = .seconds(30)
    /// Connect over IPv4 only, IPv6 only, or both (the default; wget's and curl's `-4`/`-6`).
    public var addressFamily = AddressFamily.any
    /// The local address connections are made from (wget's `--bind-address`); nil lets the
    /// system choose.
    public var localAddress: String?
    /// Longest time a host name lookup may take before the connection fails with
    /// ``SessionError/timedOut`` (wget's `--dns-timeout`); nil leaves it to the system's
    /// resolver (and ``connectTimeout``, which counts the lookup too).
    public var dnsTimeout: Duration?
    /// Longest silence between two received bytes before the transfer fails
    /// (NSURLSessionConfiguration's `timeoutIntervalForRequest`).
    public var idleReadTimeout: Duration = .seconds(60)
    /// Longest time one task may take from start to finish; nil for no limit
    /// (NSURLSessionConfiguration's `timeoutIntervalForResource`).
    public var resourceTimeout: Duration? = nil
    /// Open connections to one host (scheme, host, port) at once; further tasks wait.
    public var maxConnectionsPerHost: Int = 6
    /// Idle keep-alive connections are closed after this long.
    public var idleConnectionTimeout: Duration = .seconds(60)
    /// Headers added to every request unless the request sets them.
    public var defaultHeaders: HeaderFields
    /// Redirects followed before the task fails with ``SessionError/tooManyRedirects``.
    public var maxRedirects: Int = 20
    /// Upper bound on a response head (status line and all header fields), in bytes.
    public var maxResponseHeaderBytes: Int = 64 * 1024
    /// Certificate verification and trust roots.
    public var tls: TLSSettings = TLSSettings()
    /// Largest single read from a socket; bigger reads mean fewer system calls on fast links.
    public var receiveBufferSize: Int = 1 << 20
    /// Undo the body's `Content-Encoding` (gzip, deflate, br, zstd; stacked codings too). When
    /// off, bodies are stored and delivered exactly as sent. Which codings a server may use is
    /// asked with the `Accept-Encoding` header: `identity` by default (as wget), so servers
    /// normally send bytes as stored; set it to ``ContentCoding/acceptAll`` to ask for
    /// compression (curl's `--compressed`).
    public var decodesContentEncoding = true
    /// Largest body a task accepts, counted after decoding; nil for no limit. A larger
    /// announced length fails before any byte is stored; a body that grows past it (chunked,
    /// or a decompression bomb) fails with ``SessionError/tooLarge`` at that point.
    public var maximumBodyBytes: Int64?
    /// Most body bytes per second over all connections of the session together (a token
    /// bucket with about 100 ms of burst); nil (or a value below 1) for no limit.
    public var maximumBytesPerSecond: Int64?
    /// Connections one download task may use at once (`--split`): when the first answer shows
    /// a known length, byte ranges and a validator, the rest of the file is fetched in
    /// segments written at their offsets, with work stealing. 1 (the default): one connection.
    public var segmentsPerDownload = 1
    /// The smallest segment a download is split into (and the least worth stealing).
    public var minimumSegmentBytes: Int64 = 1 << 20
    /// Request bodies of this many bytes and more, and bodies of unknown length, are sent with
    /// `Expect: 100-continue` (RFC 9110 §10.1.1): the body waits for the server's `100
    /// Continue`, or ``expectContinueTimeout``, and is not sent at all when a final answer
    /// (a 401, 407, 417, any other status of 300 and up) comes first. 1 MiB by default, as
    /// curl; nil never sends `Expect`.
    public var expectContinueThreshold: Int64? = 1 << 20
    /// How long a body sent with `Expect: 100-continue` waits for `100 Continue` before it is
    /// sent anyway (servers that ignore the expectation): 1 s, as curl.
    public var expectContinueTimeout: Duration = .seconds(1)
    /// How failed transfers are retried (download tasks resume from the bytes they hold). Only
    /// requests with an idempotent method (RFC 9110 §9.2.2) whose body can be sent again are
    /// retried after their request was sent; others (a POST, a body from standard input) only
    /// when they failed before connecting (``TaskAttempts``). No retries by default; background
    /// sessions retry 20 times.
    public var retryPolicy: RetryPolicy

    /// Where cookies are kept and looked up for every hop (RFC 6265bis); nil handles no cookies
    /// at all. Requests can opt out with ``Request/shouldHandleCookies``.
    public var cookieStorage: CookieStorage?
    /// Credentials answered to challenges (persistence `.forSession`) are kept here and sent
    /// again before the server asks, to the same protection space.
    public var credentialStorage: CredentialStorage
    /// `.netrc` entries that default handling of a challenge (and FTP logins) may use; nil for
    /// none. The library never reads `~/.netrc` by itself: load it with ``Netrc/init(parsing:)``.
    public var netrc: Netrc?
    /// Send Basic credentials with the first request to the request's origin, before any
    /// challenge (wget's `--auth-no-challenge`). Off: nothing is sent until the server asks.
    public var sendsCredentialsPreemptively = false
    /// Proxies by scheme, with a `no_proxy` list; nil connects directly. The library never
    /// reads the environment by itself: use ``ProxyConfiguration/fromEnvironment(_:)``.
    public var proxy: ProxyConfiguration?
    /// HSTS (RFC 6797): hosts known to want HTTPS; their http:// URLs are upgraded before any
    /// request, and `Strict-Transport-Security` answers over verified HTTPS are learned. nil
    /// disables HSTS.
    public var hsts: HSTSStore?

    /// Protocol handlers asked before the built-in ones (http and https, ftp and ftps, file,
    /// data), in order: the first that can handle a request loads it
    /// (NSURLSessionConfiguration's `protocolClasses`).
    public var protocolHandlers: [any ProtocolHandler] = []
    /// FTP logins, data connections, TLS for `ftp://` and connection reuse.
    public var ftp = FTPSettings()
    /// Emit ``TaskEvent/debug(_:)`` events (connections, request heads) for a debug log.
    public var emitsDebugEvents = false

    /// A configuration of `kind`: ephemeral ones get private in-memory cookie, credential and HSTS
    /// stores, the others the shared ones; background ones retry (``RetryPolicy/init()``), the others
    /// do not. Default headers: `User-Agent: swget/VERSION`, `Accept: */*`, `Accept-Encoding: identity`.
    public init(kind: Kind) {
        self.kind = kind
        if case .ephemeral = kind {
            cookieStorage = CookieStorage()
            credentialStorage = CredentialStorage()
            hsts = HSTSStore()
        } else {
            cookieStorage = CookieStorage.shared
            credentialStorage = CredentialStorage.shared
            hsts = HSTSStore.shared
        }
        if case .background = kind { retryPolicy = RetryPolicy() } else { retryPolicy = .none }
        self.defaultHeaders = ["User-Agent": "swget/\(SwgetVersion.string)", "Accept": "*/*", "Accept-Encoding": "identity"]
    }

    /// The default configuration.
    public static var `default`: SessionConfiguration { SessionConfiguration(kind: .default) }
    /// A configuration that writes no persistent state.
    public static var ephemeral: SessionConfiguration { SessionConfiguration(kind: .ephemeral) }
    /// A configuration whose download state survives the process, keyed by `identifier`.
    public static func background(identifier: String) -> SessionConfiguration {
        SessionConfiguration(kind: .background(identifier: identifier))
    }
}
