/// The destination a SOCKS proxy is asked to connect to: an address or a name, and a port.
struct SOCKSTarget: Hashable, Sendable, CustomStringConvertible {
    /// How the destination host is written in the request.
    public enum Host: Hashable, Sendable {
        /// 4 bytes (IPv4) or 16 bytes (IPv6).
        case address([UInt8])
        /// A name the proxy resolves (1 to 255 bytes of printable ASCII).
        case name(String)
    }

    /// The destination host.
    public let host: Host
    /// The destination port (1 to 65535).
    public let port: Int

    /// An IP literal (IPv6 with or without brackets; a zone is dropped) becomes `.address`,
    /// anything else `.name`. Throws `.invalidTarget` for a bad port or an unusable name.
    public init(host: String, port: Int) throws(ProxyHandshakeError) {
        guard (1...65535).contains(port) else { throw .invalidTarget("port \(port) is not from 1 to 65535") }
        let literal = NoProxy.normalizedHost(host)
        if let bytes = IPLiteral.parse(literal) {
            self.host = .address(bytes)
        } else {
            guard !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalidTarget("'\(host.prefix(80))' is not a usable host name")
            }
            self.host = .name(host)
        }
        self.port = port
    }

    /// A target from address bytes (4 or 16 of them).
    public init(address: [UInt8], port: Int) throws(ProxyHandshakeError) {
        guard address.count == 4 || address.count == 16 else { throw .invalidTarget("an address has 4 or 16 bytes") }
        guard (1...65535).contains(port) else { throw .invalidTarget("port \(port) is not from 1 to 65535") }
        self.host = .address(address)
        self.port = port
    }

    /// `host:port`, IPv6 in brackets (for messages).
    public var description: String {
        switch host {
        case .name(let name): return "\(name):\(port)"
        case .address(let bytes) where bytes.count == 16: return "[\(IPLiteral.format(bytes))]:\(port)"
        case .address(let bytes): return "\(IPLiteral.format(bytes)):\(port)"
        }
    }

    /// The port in network byte order.
    var portBytes: [UInt8] { [UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)] }
}

/// The SOCKS5 client handshake (RFC 1928) with username/password authentication (RFC 1929), as a
/// pure state machine.
///
/// 1. Greeting `05 n methods`: 00 (no authentication), plus 02 (username/password) when
///    credentials are given.
/// 2. Method selection `05 m`: 00 goes on to the request; 02 sends `01 ulen user plen password`
///    and expects `ver status` (status 0 is success; the version byte is not checked, as in curl);
///    FF means no acceptable method; anything else was not offered and is malformed.
/// 3. Request `05 01 00 atyp address port` with atyp 01 (IPv4), 04 (IPv6) or 03 (name).
/// 4. Reply `05 rep 00 atyp bound-address bound-port`: a non-zero `rep` fails as soon as its byte
///    arrives (some proxies close without the rest); the reserved byte is not checked.
/// Bytes after the reply belong to the tunnel. NIOSOCKS's `SOCKSClientHandler` offers only method
/// 00 and keeps its parsers internal, which is why this exists.
struct SOCKS5Handshake: ProxyHandshakeMachine {
    private enum State: Equatable {
        case idle, awaitingMethod, awaitingAuthentication, awaitingReply, done
    }

    /// Where the proxy is asked to connect.
    public let target: SOCKSTarget
    private let credentials: Proxy.Credentials?
    private var state = State.idle
    private var buffer: [UInt8] = []

    /// Throws `.invalidTarget` when the user name is empty or longer than 255 bytes, or the
    /// password longer than 255 bytes (RFC 1929 length fields are one byte).
    public init(target: SOCKSTarget, credentials: Proxy.Credentials? = nil) throws(ProxyHandshakeError) {
        if let credentials {
            guard !credentials.user.isEmpty, credentials.user.utf8.count <= 255, credentials.password.utf8.count <= 255 else {
                throw .invalidTarget("SOCKS5 user name must be 1 to 255 bytes and password at most 255 bytes")
            }
        }
        self.target = target
        self.credentials = credentials
    }

    /// Sends the greeting.
    public mutating func start() -> ProxyHandshakeStep {
        guard state == .idle else { return fail(.malformedResponse("handshake started twice")) }
        state = .awaitingMethod
        return ProxyHandshakeStep(write: credentials == nil ? [0x05, 0x01, 0x00] : [0x05, 0x02, 0x00, 0x02], result: .needMoreData)
    }

    /// Consumes the proxy's bytes, answering each stage; pipelined answers are handled in order.
    public mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        guard state != .idle, state != .done else { return fail(.malformedResponse("data outside the handshake")) }
        buffer.append(contentsOf: bytes)
        var write: [UInt8] = []
        while true {
            switch state {
            case .idle, .done:
                return fail(.malformedResponse("data outside the handshake"))
            case .awaitingMethod:
                guard buffer.count >= 2 else { return ProxyHandshakeStep(write: write, result: .needMoreData) }
                guard buffer[0] == 0x05 else { return fail(.malformedResponse("SOCKS version \(buffer[0]) in the method selection (expected 5)")) }
                let method = buffer[1]
                buffer.removeFirst(2)
                switch method {
                case 0x00:
                    write += request
                    state = .awaitingReply
                case 0x02 where credentials != nil:
                    write += authentication
                    state = .awaitingAuthentication
                case 0xFF:
                    return fail(.socksNoAcceptableMethod(offeredUsernamePassword: credentials != nil))
                default:
                    return fail(.malformedResponse("the SOCKS5 proxy chose authentication method \(method), which was not offered"))
                }
            case .awaitingAuthentication:
                guard buffer.count >= 2 else { return ProxyHandshakeStep(write: write, result: .needMoreData) }
                let status = buffer[1]
                buffer.removeFirst(2)
                guard status == 0 else { return fail(.socksAuthenticationFailed(status: status)) }
                write += request
                state = .awaitingReply
            case .awaitingReply:
                guard buffer.count >= 2 else { return ProxyHandshakeStep(write: write, result: .needMoreData) }
                guard buffer[0] == 0x05 else { return fail(.malformedResponse("SOCKS version \(buffer[0]) in the reply (expected 5)")) }
                guard buffer[1] == 0x00 else { return fail(.socks5ConnectFailed(reply: buffer[1])) }
                guard buffer.count >= 5 else { return ProxyHandshakeStep(write: write, result: .needMoreData) }
                let length: Int
                switch buffer[3] {
                case 0x01: length = 4 + 4 + 2
                case 0x04: length = 4 + 16 + 2
                case 0x03: length = 4 + 1 + Int(buffer[4]) + 2
                default: return fail(.malformedResponse("unknown address type \(buffer[3]) in the SOCKS5 reply"))
                }
                guard buffer.count >= length else { return ProxyHandshakeStep(write: write, result: .needMoreData) }
                state = .done
                let leftover = Array(buffer[length...])
                buffer = []
                return ProxyHandshakeStep(write: write, result: .established(.socks, leftover: leftover))
            }
        }
    }

    /// Names the stage the proxy abandoned.
    public func connectionClosed() -> ProxyHandshakeError {
        switch state {
        case .idle, .awaitingMethod: return .connectionClosed("before choosing a SOCKS5 authentication method")
        case .awaitingAuthentication: return .connectionClosed("during SOCKS5 username/password authentication")
        case .awaitingReply, .done: return .connectionClosed("before replying to the SOCKS5 request for \(target)")
        }
    }

    private mutating func fail(_ error: ProxyHandshakeError) -> ProxyHandshakeStep {
        state = .done
        buffer = []
        return ProxyHandshakeStep(result: .failed(error))
    }

    /// RFC 1929 §2: `01 ulen user plen password`.
    private var authentication: [UInt8] {
        guard let credentials else { return [] }
        let user = Array(credentials.user.utf8), password = Array(credentials.password.utf8)
        return [0x01, UInt8(truncatingIfNeeded: user.count)] + user + [UInt8(truncatingIfNeeded: password.count)] + password
    }

    /// RFC 1928 §4: `05 01 00 atyp address port`.
    private var request: [UInt8] {
        var bytes: [UInt8] = [0x05, 0x01, 0x00]
        switch target.host {
        case .address(let address):
            bytes.append(address.count == 4 ? 0x01 : 0x04)
            bytes += address
        case .name(let name):
            let name = Array(name.utf8)
            bytes += [0x03, UInt8(truncatingIfNeeded: name.count)] + name
        }
        return bytes + target.portBytes
    }
}
