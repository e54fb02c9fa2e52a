/// How a protection space authenticates: the counterpart of the `NSURLAuthenticationMethod*`
/// constants of Apple's URL Loading System. An extensible struct: new methods can be added
/// without breaking a `switch` (compare with the static members).
public struct AuthenticationMethod: Hashable, Sendable, CustomStringConvertible {
    /// The method's name (Apple's constant name, e.g. "NSURLAuthenticationMethodHTTPBasic").
    public let rawValue: String

    /// A method named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Whatever the protocol uses by default (NSURLAuthenticationMethodDefault).
    public static let `default` = AuthenticationMethod(rawValue: "NSURLAuthenticationMethodDefault")
    /// HTTP Basic, RFC 7617 (NSURLAuthenticationMethodHTTPBasic).
    public static let httpBasic = AuthenticationMethod(rawValue: "NSURLAuthenticationMethodHTTPBasic")
    /// HTTP Digest, RFC 7616 (NSURLAuthenticationMethodHTTPDigest).
    public static let httpDigest = AuthenticationMethod(rawValue: "NSURLAuthenticationMethodHTTPDigest")
    /// The server's TLS certificate chain is evaluated (NSURLAuthenticationMethodServerTrust).
    public static let serverTrust = AuthenticationMethod(rawValue: "NSURLAuthenticationMethodServerTrust")
    /// The server asks for a TLS client certificate (NSURLAuthenticationMethodClientCertificate).
    public static let clientCertificate = AuthenticationMethod(rawValue: "NSURLAuthenticationMethodClientCertificate")

    /// The raw value.
    public var description: String { rawValue }
}

/// A server or proxy area that shares credentials: the counterpart of NSURLProtectionSpace in
/// Apple's URL Loading System.
///
/// Host and scheme are stored lowercased, so that `Example.COM` and `example.com` are one space.
/// Two spaces are equal when every field is; ``matchesOrigin(of:)`` compares only host, port,
/// scheme and `isProxy`, for credentials sent before any challenge to a space seen before.
public struct ProtectionSpace: Hashable, Sendable, CustomStringConvertible {
    /// The host name or IP literal (lowercased, without brackets for IPv6).
    public let host: String
    /// The port.
    public let port: Int
    /// "http", "https", "ftp"... (NSURLProtectionSpace's `protocol`); for a proxy, the proxy's
    /// scheme.
    public let scheme: String
    /// The realm of an HTTP challenge; nil for spaces without one (server trust, FTP).
    public let realm: String?
    /// Basic, Digest, server trust...
    public let authenticationMethod: AuthenticationMethod
    /// True for a proxy's space (407 / `Proxy-Authenticate`).
    public let isProxy: Bool

    /// A protection space. `host` and `scheme` are lowercased, IPv6 brackets removed.
    public init(host: String, port: Int, scheme: String, realm: String?,
                authenticationMethod: AuthenticationMethod = .default, isProxy: Bool = false) {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port
        self.scheme = scheme.lowercased()
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
    }

    /// True when a password sent to this space cannot be read on the way: over https, or with
    /// Digest (NSURLProtectionSpace's `receivesCredentialSecurely`).
    public var receivesCredentialSecurely: Bool {
        scheme == "https" || authenticationMethod == .httpDigest
    }

    /// True when `other` has the same host, port, scheme and `isProxy` (realm and method may
    /// differ): where a credential may be sent before the server asks.
    public func matchesOrigin(of other: ProtectionSpace) -> Bool {
        host == other.host && port == other.port && scheme == other.scheme && isProxy == other.isProxy
    }

    /// "https://example.com:443 realm "x" (Basic)", for messages.
    public var description: String {
        let hostText = HostText.url(host)
        var text = "\(isProxy ? "proxy " : "")\(scheme)://\(hostText):\(port)"
        if let realm { text += " realm \"\(realm.prefix(100))\"" }
        return text
    }
}
