/// The HTTP CONNECT handshake (RFC 9110 §9.3.6) with an HTTP proxy, as pure values: the request
/// bytes, and the proxy's answer parsed incrementally (`ResponseParser`).
///
/// Any 2xx answer establishes the tunnel; its Content-Length and Transfer-Encoding are ignored
/// (RFC 9110 §9.3.6), so bytes after the head are the tunnel's. 1xx interim heads (not 101) are
/// skipped. 407 asks for proxy credentials (RFC 9110 §15.5.8); any other status refuses.
/// The answer's body, if any, is not read: after a refusal the connection is closed.
public struct HTTPConnectHandshake: ProxyHandshakeMachine {
    /// The proxy's answer head.
    public struct ResponseHead: Equatable, Sendable {
        /// `HTTP/1.1` or `HTTP/1.0`, as sent.
        public var version: String
        /// The status code, 100 to 599.
        public var status: Int
        /// The reason phrase, possibly empty (RFC 9112 §4).
        public var reasonPhrase: String
        /// The header fields in the order sent (obs-folded lines joined).
        public var headers: HeaderFields

        /// A head from its parts.
        public init(version: String, status: Int, reasonPhrase: String, headers: HeaderFields) {
            self.version = version
            self.status = status
            self.reasonPhrase = reasonPhrase
            self.headers = headers
        }

        /// `HTTP/1.1 407 Proxy Authentication Required`, for messages and `-S`.
        public var statusLine: String {
            reasonPhrase.isEmpty ? "\(version) \(status)" : "\(version) \(status) \(reasonPhrase)"
        }

        /// Every `Proxy-Authenticate` challenge, in order (RFC 9110 §11.7.1).
        public var proxyAuthenticate: [String] { headers.values(for: "Proxy-Authenticate") }
    }

    /// What the proxy's answer means.
    public enum Outcome: Equatable, Sendable {
        /// 2xx: the tunnel is up; `leftover` bytes followed the head and belong to the tunnel.
        case established(ResponseHead, leftover: [UInt8])
        /// 407: credentials are needed (the head carries the challenges).
        case authenticationRequired(ResponseHead)
        /// Any other final status (the head carries status and reason phrase).
        case refused(ResponseHead)
        /// The answer is not HTTP/1.x or breaks its syntax or size bound.
        case malformed(String)
    }

    /// `host:port` as written in the request line and Host header.
    public let authority: String
    /// The complete CONNECT request.
    public let request: [UInt8]
    private var parser: ResponseParser
    private var started = false

    /// Longest `Proxy-Authorization`, `User-Agent` or extra header value accepted.
    public static let maximumFieldLength = 16 * 1024

    /// Prepares `CONNECT host:port HTTP/1.1` with `Host`, then `Proxy-Authorization` (a value the
    /// caller computed, e.g. `Proxy.Credentials.basicAuthorization`), `User-Agent` and
    /// `additionalHeaders` when given. An IPv6 `host` is bracketed (a zone is dropped). Throws
    /// `.invalidTarget` for an unusable host or port, or a field carrying CR, LF or another
    /// control character (header injection).
    public init(host: String, port: Int, proxyAuthorization: String? = nil, userAgent: String? = nil,
                additionalHeaders: HeaderFields = HeaderFields(),
                maximumHeadBytes: Int = ResponseParser.defaultMaximumHeadBytes) throws(ProxyHandshakeError) {
        authority = try Self.authority(host: host, port: port)
        var fields: [(String, String)] = [("Host", authority)]
        if let proxyAuthorization { fields.append(("Proxy-Authorization", proxyAuthorization)) }
        if let userAgent { fields.append(("User-Agent", userAgent)) }
        for field in additionalHeaders { fields.append((field.name, field.value)) }
        var text = "CONNECT \(authority) HTTP/1.1\r\n"
        for (name, value) in fields {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidTarget("invalid header name '\(name.prefix(40))'")
            }
            guard value.utf8.count <= Self.maximumFieldLength,
                  value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .invalidTarget("invalid value for header \(name)")
            }
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        request = Array(text.utf8)
        parser = ResponseParser(maximumHeadBytes: maximumHeadBytes)
    }

    /// `host:port`, IPv6 in brackets; validates both.
    static func authority(host: String, port: Int) throws(ProxyHandshakeError) -> String {
        guard (1...65535).contains(port) else { throw .invalidTarget("port \(port) is not from 1 to 65535") }
        var name = host[...]
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.contains(":") {
            if let percent = name.firstIndex(of: "%") { name = name[..<percent] }
            guard let bytes = IPLiteral.parse(String(name)), bytes.count == 16 else {
                throw .invalidTarget("'\(host.prefix(80))' is neither a host name nor an IPv6 address")
            }
            return "[\(name)]:\(port)"
        }
        guard !name.isEmpty, name.utf8.count <= 255, name.utf8.allSatisfy({ byte in
            byte > 0x20 && byte < 0x7F && !"/?#@[]\\\"<>".containsByte(byte)
        }) else {
            throw .invalidTarget("'\(host.prefix(80))' is not a usable host name")
        }
        return "\(name):\(port)"
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".containsByte(byte)
        }
    }

    // MARK: ProxyHandshakeMachine

    /// Writes the request.
    mutating func start() -> ProxyHandshakeStep {
        guard !started else { return ProxyHandshakeStep(result: .failed(.malformedResponse("handshake started twice"))) }
        started = true
        return ProxyHandshakeStep(write: request, result: .needMoreData)
    }

    /// Feeds the proxy's bytes to the parser and maps its outcome.
    mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        guard let outcome = parser.parse(bytes) else { return ProxyHandshakeStep(result: .needMoreData) }
        switch outcome {
        case .established(let head, let leftover):
            return ProxyHandshakeStep(result: .established(.httpConnect(head), leftover: leftover))
        case .authenticationRequired(let head):
            return ProxyHandshakeStep(result: .failed(.proxyAuthenticationRequired(head)))
        case .refused(let head):
            return ProxyHandshakeStep(result: .failed(.connectRefused(head)))
        case .malformed(let reason):
            return ProxyHandshakeStep(result: .failed(.malformedResponse(reason)))
        }
    }

    /// Names how far the proxy got with its answer.
    public func connectionClosed() -> ProxyHandshakeError {
        parser.bytesReceived == 0
            ? .connectionClosed("before answering CONNECT \(authority)")
            : .connectionClosed("in the middle of its answer to CONNECT \(authority) (\(parser.bytesReceived) bytes received)")
    }
}
