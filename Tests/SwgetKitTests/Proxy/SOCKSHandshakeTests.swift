import Testing
@testable import SwgetKit

@Suite("SOCKS5 and SOCKS4 handshakes (pure)")
struct SOCKSHandshakeTests {
    static let name = try! SOCKSTarget(host: "example.com", port: 443)  // literal test input
    static let okReply: [UInt8] = [0x05, 0x00, 0x00, 0x01, 10, 0, 0, 1, 0x1F, 0x90]
    static let domainGreeting: [UInt8] = [0x05, 0x01, 0x00]
    static let nameRequest: [UInt8] = [0x05, 0x01, 0x00, 0x03, 11] + Array("example.com".utf8) + [0x01, 0xBB]

    /// Runs `machine` against the proxy's `script`, delivered in `pieces`; returns everything
    /// written and the final result (nil when it still waits).
    static func run(_ machine: some ProxyHandshakeMachine, script: [UInt8], pieces: [Int]? = nil) -> (written: [UInt8], result: ProxyHandshakeStep.Result?) {
        var machine = machine
        let first = machine.start()
        var written = first.write
        var chunks: [[UInt8]] = []
        var rest = script[...]
        for size in pieces ?? [script.count] where !rest.isEmpty {
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        if !rest.isEmpty { chunks.append(Array(rest)) }
        for chunk in chunks {
            let step = machine.receive(chunk)
            written += step.write
            if step.result != .needMoreData { return (written, step.result) }
        }
        return (written, nil)
    }

    // MARK: SOCKS5

    @Test func noAuthenticationWithAName() throws {
        let run = Self.run(try SOCKS5Handshake(target: Self.name), script: [0x05, 0x00] + Self.okReply + [0xAA, 0xBB])
        #expect(run.written == Self.domainGreeting + Self.nameRequest)
        #expect(run.result == .established(.socks, leftover: [0xAA, 0xBB]))
    }

    @Test(arguments: [
        ("10.1.2.3", [UInt8]([0x01, 10, 1, 2, 3])),
        ("::1", [0x04] + [UInt8](repeating: 0, count: 15) + [1]),
        ("[2001:db8::2]", [0x04, 0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [2]),
    ])
    func addressTypes(_ host: String, _ address: [UInt8]) throws {
        let target = try SOCKSTarget(host: host, port: 8080)
        let run = Self.run(try SOCKS5Handshake(target: target), script: [0x05, 0x00] + Self.okReply)
        #expect(run.written == Self.domainGreeting + [0x05, 0x01, 0x00] + address + [0x1F, 0x90])
        #expect(run.result == .established(.socks, leftover: []))
    }

    @Test func usernamePassword() throws {
        let machine = try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: "alice", password: "pw"))
        let script: [UInt8] = [0x05, 0x02, 0x01, 0x00] + Self.okReply
        let expected: [UInt8] = [0x05, 0x02, 0x00, 0x02] + [0x01, 5] + Array("alice".utf8) + [2] + Array("pw".utf8) + Self.nameRequest
        // whole, byte by byte, and split at every position
        #expect(Self.run(machine, script: script).written == expected)
        let single = Self.run(machine, script: script, pieces: Array(repeating: 1, count: script.count))
        #expect(single.written == expected)
        #expect(single.result == .established(.socks, leftover: []))
        for cut in 0...script.count {
            let split = Self.run(machine, script: script, pieces: [cut])
            #expect(split.written == expected, "cut at \(cut)")
            #expect(split.result == .established(.socks, leftover: []), "cut at \(cut)")
        }
    }

    @Test func credentialsOfferedButNotNeeded() throws {
        let machine = try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: "u", password: ""))
        let run = Self.run(machine, script: [0x05, 0x00] + Self.okReply)
        #expect(run.written == [0x05, 0x02, 0x00, 0x02] + Self.nameRequest)
        #expect(run.result == .established(.socks, leftover: []))
    }

    @Test func replyWithADomainBoundAddress() throws {
        let reply: [UInt8] = [0x05, 0x00, 0x00, 0x03, 4] + Array("host".utf8) + [0, 80]
        let run = Self.run(try SOCKS5Handshake(target: Self.name), script: [0x05, 0x00] + reply + [1])
        #expect(run.result == .established(.socks, leftover: [1]))
        let ipv6: [UInt8] = [0x05, 0x00, 0x00, 0x04] + [UInt8](repeating: 0, count: 16) + [0, 80]
        #expect(Self.run(try SOCKS5Handshake(target: Self.name), script: [0x05, 0x00] + ipv6).result == .established(.socks, leftover: []))
    }

    @Test(arguments: UInt8(1)...UInt8(10))
    func everyReplyCodeIsAFailureInWords(_ code: UInt8) throws {
        // Only the first two bytes: proxies often close after them.
        let run = Self.run(try SOCKS5Handshake(target: Self.name), script: [0x05, 0x00, 0x05, code])
        #expect(run.result == .failed(.socks5ConnectFailed(reply: code)))
        let words = ProxyHandshakeError.socks5ConnectFailed(reply: code).description
        let expected = ["", "general SOCKS server failure", "connection not allowed by ruleset", "network unreachable", "host unreachable",
                        "connection refused", "TTL expired", "command not supported", "address type not supported",
                        "unassigned reply code 9", "unassigned reply code 10"][Int(code)]
        #expect(words == "SOCKS5 proxy: \(expected)")
    }

    struct Broken: CustomTestStringConvertible, Sendable {
        let name: String
        let credentials: Bool
        let script: [UInt8]
        let result: ProxyHandshakeStep.Result?
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(name: "SOCKS4 server answering a greeting", credentials: false, script: [0x00, 0x5B], result: .failed(.malformedResponse("SOCKS version 0 in the method selection (expected 5)"))),
        Broken(name: "HTTP server answering", credentials: false, script: Array("HTTP/1.1 400".utf8), result: .failed(.malformedResponse("SOCKS version 72 in the method selection (expected 5)"))),
        Broken(name: "no acceptable method", credentials: false, script: [0x05, 0xFF], result: .failed(.socksNoAcceptableMethod(offeredUsernamePassword: false))),
        Broken(name: "no acceptable method with credentials", credentials: true, script: [0x05, 0xFF], result: .failed(.socksNoAcceptableMethod(offeredUsernamePassword: true))),
        Broken(name: "method 02 not offered", credentials: false, script: [0x05, 0x02], result: .failed(.malformedResponse("the SOCKS5 proxy chose authentication method 2, which was not offered"))),
        Broken(name: "GSSAPI not offered", credentials: true, script: [0x05, 0x01], result: .failed(.malformedResponse("the SOCKS5 proxy chose authentication method 1, which was not offered"))),
        Broken(name: "authentication failed", credentials: true, script: [0x05, 0x02, 0x01, 0x01], result: .failed(.socksAuthenticationFailed(status: 1))),
        Broken(name: "authentication failed, odd version byte", credentials: true, script: [0x05, 0x02, 0x05, 0xFF], result: .failed(.socksAuthenticationFailed(status: 255))),
        Broken(name: "wrong version in the reply", credentials: false, script: [0x05, 0x00, 0x04, 0x00], result: .failed(.malformedResponse("SOCKS version 4 in the reply (expected 5)"))),
        Broken(name: "unknown address type", credentials: false, script: [0x05, 0x00, 0x05, 0x00, 0x00, 0x02, 0], result: .failed(.malformedResponse("unknown address type 2 in the SOCKS5 reply"))),
        Broken(name: "short method selection", credentials: false, script: [0x05], result: nil),
        Broken(name: "short auth reply", credentials: true, script: [0x05, 0x02, 0x01], result: nil),
        Broken(name: "short reply", credentials: false, script: [0x05, 0x00, 0x05, 0x00, 0x00, 0x01, 10, 0, 0], result: nil),
        Broken(name: "short domain reply", credentials: false, script: [0x05, 0x00, 0x05, 0x00, 0x00, 0x03, 200] + [UInt8](repeating: 0x61, count: 150), result: nil),
    ]

    @Test(arguments: broken)
    func brokenProxies(_ c: Broken) throws {
        let credentials = c.credentials ? Proxy.Credentials(user: "u", password: "p") : nil
        let machine = try SOCKS5Handshake(target: Self.name, credentials: credentials)
        #expect(Self.run(machine, script: c.script).result == c.result)
        #expect(Self.run(machine, script: c.script, pieces: Array(repeating: 1, count: c.script.count)).result == c.result)
    }

    @Test func closedConnectionsNameTheStage() throws {
        var machine = try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: "u", password: "p"))
        _ = machine.start()
        #expect(machine.connectionClosed() == .connectionClosed("before choosing a SOCKS5 authentication method"))
        _ = machine.receive([0x05, 0x02])
        #expect(machine.connectionClosed() == .connectionClosed("during SOCKS5 username/password authentication"))
        _ = machine.receive([0x01, 0x00])
        #expect(machine.connectionClosed() == .connectionClosed("before replying to the SOCKS5 request for example.com:443"))
        #expect(machine.receive([0x05, 0x00, 0x00, 0x01, 1, 2, 3, 4, 0, 1]).result == .established(.socks, leftover: []))
        #expect(machine.receive([1]).result == .failed(.malformedResponse("data outside the handshake")))
    }

    @Test func badCredentialsAndTargetsAreRefusedUpFront() throws {
        #expect(throws: ProxyHandshakeError.self) { try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: "", password: "p")) }
        #expect(throws: ProxyHandshakeError.self) { try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: String(repeating: "u", count: 256), password: "")) }
        #expect(throws: ProxyHandshakeError.self) { try SOCKS5Handshake(target: Self.name, credentials: Proxy.Credentials(user: "u", password: String(repeating: "p", count: 256))) }
        for (host, port) in [("", 1), ("h", 0), ("h", 65536), ("a b", 1), (String(repeating: "a", count: 256), 1), ("\u{0}", 1), ("é", 1)] {
            #expect(throws: ProxyHandshakeError.self) { try SOCKSTarget(host: host, port: port) }
        }
        #expect(throws: ProxyHandshakeError.self) { try SOCKSTarget(address: [1, 2, 3], port: 1) }
        #expect(try SOCKSTarget(host: String(repeating: "a", count: 255), port: 1).port == 1)
    }

    // MARK: SOCKS4 / SOCKS4a

    @Test func socks4WithAnAddress() throws {
        let target = try SOCKSTarget(host: "10.0.0.2", port: 80)
        let run = Self.run(try SOCKS4Handshake(target: target, userID: "bob", allowNames: false), script: [0x00, 90, 0, 0, 0, 0, 0, 0, 0xEE])
        #expect(run.written == [0x04, 0x01, 0x00, 0x50, 10, 0, 0, 2] + Array("bob".utf8) + [0x00])
        #expect(run.result == .established(.socks, leftover: [0xEE]))
    }

    @Test func socks4aWithAName() throws {
        let script: [UInt8] = [0x00, 90, 0, 0, 0, 0, 0, 0]
        let run = Self.run(try SOCKS4Handshake(target: Self.name, allowNames: true), script: script, pieces: [1, 1, 1, 1, 1, 1, 1, 1])
        #expect(run.written == [0x04, 0x01, 0x01, 0xBB, 0, 0, 0, 1, 0x00] + Array("example.com".utf8) + [0x00])
        #expect(run.result == .established(.socks, leftover: []))
    }

    @Test(arguments: [UInt8(91), 92, 93, 0, 255])
    func socks4Refusals(_ code: UInt8) throws {
        let run = Self.run(try SOCKS4Handshake(target: Self.name, allowNames: true), script: [0x00, code])
        #expect(run.result == .failed(.socks4ConnectFailed(reply: code)))
        #expect(ProxyHandshakeError.socks4ConnectFailed(reply: code).description.hasPrefix("SOCKS4 proxy: "))
    }

    @Test func socks4Misuse() throws {
        #expect(Self.run(try SOCKS4Handshake(target: Self.name, allowNames: true), script: [0x04, 90]).result
            == .failed(.malformedResponse("SOCKS4 reply version 4 (expected 0)")))
        #expect(Self.run(try SOCKS4Handshake(target: Self.name, allowNames: true), script: [0x00, 90, 0, 0]).result == nil)
        #expect(throws: ProxyHandshakeError.self) { try SOCKS4Handshake(target: Self.name, allowNames: false) }
        #expect(throws: ProxyHandshakeError.self) { try SOCKS4Handshake(target: try SOCKSTarget(host: "::1", port: 1), allowNames: true) }
        #expect(throws: ProxyHandshakeError.self) { try SOCKS4Handshake(target: Self.name, userID: "a\u{0}b", allowNames: true) }
    }

    // MARK: choosing the handshake from a proxy

    @Test func proxyKindChoosesTheHandshake() throws {
        let creds = Proxy.Credentials(user: "u", password: "p")
        let http = try Proxy(kind: .http, host: "p", credentials: creds).handshake(toHost: "h", port: 443, userAgent: "ua")
        let connect = try #require(http as? HTTPConnectHandshake)
        #expect(String(decoding: connect.request, as: UTF8.self).contains("Proxy-Authorization: Basic dTpw\r\n"))
        let explicit = try #require(try Proxy(kind: .https, host: "p", credentials: creds)
            .handshake(toHost: "h", port: 443, proxyAuthorization: "Digest x") as? HTTPConnectHandshake)
        #expect(String(decoding: explicit.request, as: UTF8.self).contains("Proxy-Authorization: Digest x\r\n"))
        #expect(try Proxy(kind: .socks5h, host: "p").handshake(toHost: "h", port: 1) is SOCKS5Handshake)
        #expect(try Proxy(kind: .socks5, host: "p").handshake(toHost: "10.0.0.1", port: 1) is SOCKS5Handshake)
        #expect(try Proxy(kind: .socks4a, host: "p").handshake(toHost: "h", port: 1) is SOCKS4Handshake)
        #expect(throws: ProxyHandshakeError.self) { try Proxy(kind: .socks5, host: "p").handshake(toHost: "h", port: 1) }
        #expect(throws: ProxyHandshakeError.self) { try Proxy(kind: .socks4, host: "p").handshake(toHost: "h", port: 1) }
    }
}
