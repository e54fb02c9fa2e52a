/// The SOCKS4 and SOCKS4a client handshake (the SOCKS4 protocol document and its 4A extension),
/// as a pure state machine.
///
/// Request: `04 01 port(2) ip(4) userid 00`; SOCKS4a with a name sends ip `0.0.0.1` and appends
/// `name 00` so the proxy resolves it. The user id is the proxy user name (curl does the same).
/// Reply: 8 bytes `00 cd port(2) ip(4)`; `cd` 90 grants, 91 to 93 refuse. SOCKS4 reaches IPv4
/// only; plain SOCKS4 needs an address (swget resolves the name first).
struct SOCKS4Handshake: ProxyHandshakeMachine {
    /// Where the proxy is asked to connect.
    public let target: SOCKSTarget
    private let request: [UInt8]
    private var started = false
    private var finished = false
    private var buffer: [UInt8] = []

    /// `allowNames` is true for SOCKS4a. Throws `.invalidTarget` for an IPv6 target, a name
    /// without 4a, or a user id holding NUL or longer than 255 bytes.
    public init(target: SOCKSTarget, userID: String = "", allowNames: Bool) throws(ProxyHandshakeError) {
        let user = Array(userID.utf8)
        guard user.count <= 255, !user.contains(0) else { throw .invalidTarget("SOCKS4 user id must be at most 255 bytes without NUL") }
        var bytes: [UInt8] = [0x04, 0x01] + target.portBytes
        switch target.host {
        case .address(let address):
            guard address.count == 4 else { throw .invalidTarget("SOCKS4 cannot reach the IPv6 address \(target)") }
            bytes += address + user + [0x00]
        case .name(let name):
            guard allowNames else { throw .invalidTarget("SOCKS4 needs an IPv4 address, not the name '\(name)' (use socks4a://)") }
            bytes += [0, 0, 0, 1] + user + [0x00] + Array(name.utf8) + [0x00]
        }
        self.target = target
        self.request = bytes
    }

    /// Sends the request.
    public mutating func start() -> ProxyHandshakeStep {
        guard !started else { return ProxyHandshakeStep(result: .failed(.malformedResponse("handshake started twice"))) }
        started = true
        return ProxyHandshakeStep(write: request, result: .needMoreData)
    }

    /// Consumes the 8-byte reply; a refusal is reported as soon as its code arrives.
    public mutating func receive(_ bytes: [UInt8]) -> ProxyHandshakeStep {
        guard started, !finished else { return ProxyHandshakeStep(result: .failed(.malformedResponse("data outside the handshake"))) }
        buffer.append(contentsOf: bytes)
        guard buffer.count >= 2 else { return ProxyHandshakeStep(result: .needMoreData) }
        guard buffer[0] == 0x00 else {
            finished = true
            return ProxyHandshakeStep(result: .failed(.malformedResponse("SOCKS4 reply version \(buffer[0]) (expected 0)")))
        }
        guard buffer[1] == 90 else {
            finished = true
            return ProxyHandshakeStep(result: .failed(.socks4ConnectFailed(reply: buffer[1])))
        }
        guard buffer.count >= 8 else { return ProxyHandshakeStep(result: .needMoreData) }
        finished = true
        let leftover = Array(buffer[8...])
        buffer = []
        return ProxyHandshakeStep(result: .established(.socks, leftover: leftover))
    }

    /// The connection ended before the reply.
    public func connectionClosed() -> ProxyHandshakeError {
        .connectionClosed("before replying to the SOCKS4 request for \(target)")
    }
}
