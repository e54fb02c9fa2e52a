#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One proxy server: what it speaks, where it listens, and the credentials from its URL.
///
/// Parsed from curl's proxy URL syntax, `[scheme://][user[:password]@]host[:port][/]`:
/// - no scheme means `http://`; schemes are `http`, `https`, `socks4`, `socks4a`, `socks5`,
///   `socks5h` (case-insensitive), and `socks` meaning `socks4` as in curl;
/// - the port defaults to 443 for `https://` and 1080 for every other kind (curl's documented
///   defaults, CURLOPT_PROXYPORT); an empty port (`host:`) is the default (RFC 3986 §3.2.3);
/// - IPv6 literals are bracketed (`http://[::1]:3128`); a zone is not accepted;
/// - user and password are percent-decoded (RFC 3986 §2.1) and must decode to UTF-8;
/// - the path may only be empty or `/`; a query or fragment is an error.
/// The description (and every error message) masks the password.
public struct Proxy: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The protocol spoken to the proxy.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// HTTP proxy over plain TCP: absolute-form requests for `http://`, CONNECT for others.
        case http
        /// HTTP proxy over TLS, verified against the proxy's own name; then as `http`.
        case https
        /// SOCKS4: the client resolves the origin's name; IPv4 only.
        case socks4
        /// SOCKS4a: the proxy resolves the origin's name.
        case socks4a
        /// SOCKS5 (RFC 1928): the client resolves the origin's name.
        case socks5
        /// SOCKS5 with the name sent to the proxy, which resolves it.
        case socks5h

        /// 443 for `https`, 1080 for every other kind (curl).
        public var defaultPort: Int { self == .https ? 443 : 1080 }

        /// True for the SOCKS kinds.
        public var isSOCKS: Bool { self != .http && self != .https }

        /// True when swget itself must resolve the origin's name before the handshake
        /// (`socks4`, `socks5`): the handshake then carries an address, never a name.
        public var resolvesOriginLocally: Bool { self == .socks4 || self == .socks5 }
    }

    /// User name and password for the proxy (Basic `Proxy-Authorization`, RFC 1929, SOCKS4 user id).
    public struct Credentials: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The user name, percent-decoded.
        public var user: String
        /// The password, percent-decoded; empty when the URL gave none.
        public var password: String

        /// Credentials from their parts.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The `Proxy-Authorization` value for Basic (RFC 7617): `Basic base64(user:password)`.
        public var basicAuthorization: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }

        /// `user:***` (never the password).
        public var description: String { password.isEmpty ? user : "\(user):***" }
        /// Same as `description`: `dump` and `debugPrint` must not show the password either.
        public var debugDescription: String { description }
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// Lower-case name or IP literal, without brackets.
    public var host: String
    /// The proxy's port (1 to 65535).
    public var port: Int
    /// Credentials from the proxy URL or the options, nil for none.
    public var credentials: Credentials?

    /// A proxy from its parts; `port` nil means the kind's default.
    public init(kind: Kind, host: String, port: Int? = nil, credentials: Credentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port ?? kind.defaultPort
        self.credentials = credentials
    }

    /// `kind://[user:***@]host:port`, IPv6 hosts bracketed.
    public var description: String {
        let userinfo = credentials.map { "\($0)@" } ?? ""
        return "\(kind.rawValue)://\(userinfo)\(hostForURL):\(port)"
    }
    /// Same as `description` (the password stays masked).
    public var debugDescription: String { description }

    /// The host as it appears in a URL or a CONNECT target: IPv6 literals in brackets.
    public var hostForURL: String { HostText.url(host) }

    /// True when reaching an origin of `scheme` through this proxy needs a tunnel handshake
    /// (CONNECT or SOCKS) before the origin's protocol; false when plain `http://` requests are
    /// sent to an HTTP(S) proxy in absolute form (RFC 9112 §3.2.2).
    public func needsTunnel(toScheme scheme: String) -> Bool {
        kind.isSOCKS || !scheme.caseInsensitiveEquals("http")
    }

    /// Longest proxy URL accepted, in UTF-8 bytes.
    public static let maximumURLLength = 8 * 1024

    /// Parses a proxy URL (see the type's documentation for the syntax).
    public init(parsing text: String) throws(ProxyConfigurationError) {
        let shown = Self.masked(text)
        guard !text.isEmpty else { throw .malformedProxyURL(shown, reason: "empty") }
        guard text.utf8.count <= Self.maximumURLLength else {
            throw .malformedProxyURL(shown, reason: "longer than \(Self.maximumURLLength) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .malformedProxyURL(shown, reason: "contains a space or a control character")
        }
        var rest = text[...]
        var kind = Kind.http
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            guard let known = scheme == "socks" ? .socks4 : Kind(rawValue: scheme) else {
                throw .unsupportedScheme(String(scheme.prefix(40)))
            }
            kind = known
            rest = text[separator.upperBound...]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        guard tail.isEmpty || tail == "/" else { throw .unexpectedPath(shown) }

        var hostPort = authority
        var credentials: Credentials?
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            let colon = userinfo.firstIndex(of: ":")
            let userText = userinfo[..<(colon ?? userinfo.endIndex)]
            let passwordText = colon.map { userinfo[userinfo.index(after: $0)...] } ?? ""
            guard let user = Self.percentDecoded(userText), let password = Self.percentDecoded(passwordText) else {
                throw .malformedProxyURL(shown, reason: "bad percent-encoding in the user name or password")
            }
            if !user.isEmpty || !password.isEmpty { credentials = Credentials(user: user, password: password) }
        }

        let (host, portText) = try Self.splitHostPort(hostPort, shown: shown)
        var port = kind.defaultPort
        if let portText, !portText.isEmpty {
            guard let number = NoProxy.decimal(portText, maximumDigits: 5), (1...65535).contains(number) else {
                throw .invalidPort(String(portText.prefix(10)))
            }
            port = number
        }
        self.init(kind: kind, host: host, port: port, credentials: credentials)
    }

    /// Host (validated, lower case, unbracketed) and the port text after ':' if any.
    private static func splitHostPort(_ text: Substring, shown: String) throws(ProxyConfigurationError) -> (String, Substring?) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .malformedProxyURL(shown, reason: "'[' without ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw .malformedProxyURL(shown, reason: "unexpected text after ']'")
            }
            guard let bytes = IPLiteral.parse(String(host)), bytes.count == 16 else {
                throw .malformedProxyURL(shown, reason: "no IPv6 address inside the brackets")
            }
            return (host.lowercased(), portText)
        }
        let colons = text.filter { $0 == ":" }.count
        guard colons <= 1 else { throw .malformedProxyURL(shown, reason: "an IPv6 address must be in brackets") }
        host = text
        if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .malformedProxyURL(shown, reason: "no host") }
        guard host.utf8.count <= 253 else { throw .malformedProxyURL(shown, reason: "host name longer than 253 bytes") }
        let allowed = host.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        guard allowed else {
            throw .malformedProxyURL(shown, reason: "invalid character in the host name (IDN names must be given in punycode)")
        }
        return (host.lowercased(), portText)
    }

    /// RFC 3986 §2.1 percent-decoding; nil for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `text` for messages: the password (between the userinfo's first ':' and its '@') replaced
    /// by `***`, cut to 200 characters.
    static func masked(_ text: String) -> String {
        var shown = text
        let start = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        let authorityEnd = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        if let at = text[start..<authorityEnd].lastIndex(of: "@"),
           let colon = text[start..<at].firstIndex(of: ":") {
            shown = String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
        }
        return shown.count > 200 ? String(shown.prefix(200)) + "…" : shown
    }
}
