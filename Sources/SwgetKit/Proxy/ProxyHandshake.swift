/// A proxy handshake as a pure state machine: the bytes to write and what the proxy's bytes
/// mean, with no I/O. `HTTPConnectHandshake`, `SOCKS5Handshake` and `SOCKS4Handshake` conform;
/// `ProxyHandshakeHandler` drives any of them on a NIO channel.
///
/// Contract: call `start()` once when the connection to the proxy is up, then `receive(_:)`
/// with every byte the proxy sends, in order, until a step's result is not `.needMoreData`;
/// call `connectionClosed()` if the connection ends before that. Write each step's `write`
/// bytes before acting on its result. Calls after a final result return `.failed`.
protocol ProxyHandshakeMachine: Sendable {
    /// The first bytes to send (CONNECT request, SOCKS greeting).
    mutating func start() -> ProxyHandshakeStep
    /// Consumes bytes from the proxy; bytes past the handshake come back as `leftover`.
    mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep
    /// The error for a connection that ended before the handshake did, naming the stage.
    func connectionClosed() -> ProxyHandshakeError
}

/// What a handshake machine asks for after an event.
struct ProxyHandshakeStep: Equatable, Sendable {
    /// Where the handshake stands.
    public enum Result: Equatable, Sendable {
        /// Wait for more bytes from the proxy.
        case needMoreData
        /// The tunnel is up; `leftover` bytes arrived after the handshake and belong to the
        /// origin's protocol: hand them on before anything read later.
        case established(ProxyTunnel, leftover: [UInt8])
        /// The handshake failed; the connection must be closed.
        case failed(ProxyHandshakeError)
    }

    /// Bytes to write to the proxy now (often empty).
    public var write: [UInt8]
    /// What happens next.
    public var result: Result

    /// A step; by default nothing to write.
    public init(write: [UInt8] = [], result: Result) {
        self.write = write
        self.result = result
    }
}

/// What is known about an established tunnel.
enum ProxyTunnel: Equatable, Sendable {
    /// An HTTP proxy accepted CONNECT with this 2xx head (for `-S`).
    case httpConnect(HTTPConnectHandshake.ResponseHead)
    /// A SOCKS proxy granted the connection.
    case socks
}

/// The user event `ProxyHandshakeHandler` fires down the pipeline when the tunnel is up, just
/// before it hands on leftover bytes and removes itself.
struct ProxyTunnelEstablishedEvent: Equatable, Sendable {
    /// What the proxy said when it accepted.
    public let tunnel: ProxyTunnel
}

/// Why a proxy handshake failed. Descriptions are one line; reply codes are given in words.
public enum ProxyHandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The origin cannot be written in this handshake (control characters, a name where SOCKS4
    /// or `socks5://` needs an address, IPv6 through SOCKS4, over-long names or credentials).
    case invalidTarget(String)
    /// The HTTP proxy answered CONNECT with 407; `head.proxyAuthenticate` holds the challenges.
    case proxyAuthenticationRequired(HTTPConnectHandshake.ResponseHead)
    /// The HTTP proxy answered CONNECT with a status other than 2xx and 407.
    case connectRefused(HTTPConnectHandshake.ResponseHead)
    /// The proxy's answer breaks its protocol (wrong version, bad syntax, over-long head...).
    case malformedResponse(String)
    /// The connection ended during the handshake; the text names the stage.
    case connectionClosed(String)
    /// The proxy did not finish the handshake in time.
    case timedOut
    /// SOCKS5: the proxy accepted none of the offered methods (RFC 1928 §3, 0xFF).
    case socksNoAcceptableMethod(offeredUsernamePassword: Bool)
    /// SOCKS5: the proxy rejected the user name and password (RFC 1929 §2, status ≠ 0).
    case socksAuthenticationFailed(status: UInt8)
    /// SOCKS5: the CONNECT reply code was not 0 (RFC 1928 §6).
    case socks5ConnectFailed(reply: UInt8)
    /// SOCKS4/4a: the request was not granted (reply code ≠ 90).
    case socks4ConnectFailed(reply: UInt8)

    /// True for failures that credentials could fix (the CLI's exit 6). A 401 answer to CONNECT
    /// counts too: tinyproxy 1.11 answers wrong proxy credentials with 401, not 407.
    public var isAuthenticationFailure: Bool {
        switch self {
        case .proxyAuthenticationRequired, .socksAuthenticationFailed, .socksNoAcceptableMethod: return true
        case .connectRefused(let head): return head.status == 401
        default: return false
        }
    }

    /// One line for the user; SOCKS reply codes in words, HTTP answers by their status line.
    public var description: String {
        switch self {
        case .invalidTarget(let reason):
            return "cannot ask the proxy for this destination: \(reason)"
        case .proxyAuthenticationRequired(let head):
            return "proxy authentication required (\(head.statusLine))"
        case .connectRefused(let head):
            return "the proxy refused CONNECT: \(head.statusLine)"
        case .malformedResponse(let reason):
            return "malformed proxy answer: \(reason)"
        case .connectionClosed(let stage):
            return "the proxy closed the connection \(stage)"
        case .timedOut:
            return "the proxy did not complete the handshake in time"
        case .socksNoAcceptableMethod(let offered):
            return offered ? "the SOCKS5 proxy accepted neither no authentication nor username/password"
                : "the SOCKS5 proxy requires authentication (give a user name and password)"
        case .socksAuthenticationFailed(let status):
            return "the SOCKS5 proxy rejected the user name or password (status \(status))"
        case .socks5ConnectFailed(let reply):
            return "SOCKS5 proxy: \(Self.socks5Reply(reply))"
        case .socks4ConnectFailed(let reply):
            return "SOCKS4 proxy: \(Self.socks4Reply(reply))"
        }
    }

    /// RFC 1928 §6 reply codes in words.
    public static func socks5Reply(_ code: UInt8) -> String {
        switch code {
        case 0x00: return "succeeded"
        case 0x01: return "general SOCKS server failure"
        case 0x02: return "connection not allowed by ruleset"
        case 0x03: return "network unreachable"
        case 0x04: return "host unreachable"
        case 0x05: return "connection refused"
        case 0x06: return "TTL expired"
        case 0x07: return "command not supported"
        case 0x08: return "address type not supported"
        default: return "unassigned reply code \(code)"
        }
    }

    /// SOCKS4 reply codes (the SOCKS4 and SOCKS4a protocol documents) in words.
    public static func socks4Reply(_ code: UInt8) -> String {
        switch code {
        case 90: return "request granted"
        case 91: return "request rejected or failed"
        case 92: return "request rejected: the proxy cannot reach identd on the client"
        case 93: return "request rejected: identd reports a different user id"
        default: return "unknown reply code \(code)"
        }
    }
}
