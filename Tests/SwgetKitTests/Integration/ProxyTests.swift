import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// Downloads through real proxies (tinyproxy, microsocks) and scripted ones, through the
/// library's public API: bytes arrive unchanged, the proxy sees what it should, connections are
/// pooled per (proxy, origin).
@Suite("Proxies end to end (SwgetKit)")
struct ProxyTests {
    static let source = randomBytes(700_000, seed: 0x9A0C5)

    /// A TLS origin and plain origin serving `source` at any path, with the CA file trusting the
    /// TLS one; stopped after `body`.
    static func withOrigins<T>(_ body: (_ plain: TestServer, _ secure: TestServer, _ ca: String) async throws -> T) async throws -> T {
        let pki = try TestCertificates.make()
        let ca = try pki.writeCA(to: try makeTemporaryDirectory())
        let identity = try pki.serverIdentity()
        return try await withServer({ TestResponse.serving(Self.source, to: $0, etag: "\"p\"") }) { plain in
            try await withServer(tls: identity, { TestResponse.serving(Self.source, to: $0, etag: "\"s\"") }) { secure in
                try await body(plain, secure, ca)
            }
        }
    }

    /// A session configuration using `proxy` and trusting `ca`.
    static func configuration(_ proxy: ProxyConfiguration, ca: String? = nil) -> SessionConfiguration {
        var configuration = SessionConfiguration.ephemeral
        configuration.proxy = proxy
        if let ca { configuration.tls.additionalTrustRootFiles = [ca] }
        configuration.retryPolicy.maxAttempts = 1
        return configuration
    }

    /// Records the proxy's answers to CONNECT (`.proxyTunnel` events).
    final class TunnelRecorder: SessionDelegate {
        let tunnels = Mutex<[String]>([])
        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            if case .proxyTunnel(let response) = event {
                tunnels.withLock { $0.append("\(response.httpVersion) \(response.statusCode) \(response.reasonPhrase)") }
            }
        }
    }

    @Test(arguments: [false, true])
    func tinyproxyForwardsHTTPAndTunnelsHTTPS(withAuth: Bool) async throws {
        let proxy = try await withAuth ? ForwardProxy.start(user: "alice", password: "s3cret.x") : ForwardProxy.start()
        defer { proxy.stop() }
        let dir = try makeTemporaryDirectory()
        let recorder = TunnelRecorder()
        try await Self.withOrigins { plain, secure, ca in
            let all = try Proxy(parsing: proxy.urlWithCredentials ?? proxy.url)
            let session = Session(configuration: Self.configuration(ProxyConfiguration(all: all), ca: ca), delegate: recorder)
            let (plainFile, _) = try await session.download(request(plain.baseURL + "/plain.bin"), to: .directory(dir))
            let (secureFile, _) = try await session.download(request(secure.baseURL + "/secure.bin"), to: .directory(dir))
            #expect(fingerprint(contents(plainFile)) == fingerprint(Self.source))
            #expect(fingerprint(contents(secureFile)) == fingerprint(Self.source))
            let lines = proxy.requestLines()
            #expect(lines.contains("GET \(plain.baseURL)/plain.bin HTTP/1.1"), "\(lines)")
            #expect(lines.contains("CONNECT localhost:\(secure.port) HTTP/1.1"), "\(lines)")
            // Inside the tunnel the origin gets an origin-form request and nothing for the proxy.
            #expect(secure.requests.map(\.uri) == ["/secure.bin"])
            #expect(secure.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
            #expect(plain.requests.count == 1)
        }
        #expect(recorder.tunnels.withLock { $0 } == ["HTTP/1.0 200 Connection established"])
    }

    @Test(arguments: [(Proxy.Kind.socks5, false), (.socks5, true), (.socks5h, false), (.socks5h, true)])
    func microsocksTunnelsPlainAndTLS(kind: Proxy.Kind, withAuth: Bool) async throws {
        // A password that needs percent-encoding in a URL and is sent decoded (RFC 1929).
        let socks = try await withAuth ? SocksServer.start(user: "alice", password: "pä ss:word") : SocksServer.start()
        defer { socks.stop() }
        let credentials = withAuth ? "alice:p%C3%A4%20ss%3Aword@" : ""
        let dir = try makeTemporaryDirectory()
        try await Self.withOrigins { plain, secure, ca in
            let all = try Proxy(parsing: "\(kind.rawValue)://\(credentials)127.0.0.1:\(socks.port)")
            let session = Session(configuration: Self.configuration(ProxyConfiguration(all: all), ca: ca))
            let plainURL = "http://localhost:\(plain.port)/plain.bin"
            let (plainFile, _) = try await session.download(request(plainURL), to: .directory(dir))
            let (secureFile, _) = try await session.download(request(secure.baseURL + "/secure.bin"), to: .directory(dir))
            #expect(fingerprint(contents(plainFile)) == fingerprint(Self.source))
            #expect(fingerprint(contents(secureFile)) == fingerprint(Self.source))
            let connections = socks.connections()
            #expect(connections.count == 2, "\(connections)")
            if kind == .socks5h {
                #expect(connections == ["localhost:\(plain.port)", "localhost:\(secure.port)"])
            } else {
                // swget resolved the name: the proxy was given an address.
                #expect(connections.allSatisfy { !$0.hasPrefix("localhost") }, "\(connections)")
            }
            #expect(plain.requests.map(\.uri) == ["/plain.bin"])
        }
    }

    /// An https:// proxy: TLS to the proxy verified against the proxy's own name, then CONNECT and
    /// the origin's TLS inside.
    @Test func httpsProxyIsVerifiedAgainstItsOwnName() async throws {
        let pki = try TestCertificates.make()
        let ca = try pki.writeCA(to: try makeTemporaryDirectory())
        try await withServer(tls: try pki.serverIdentity(), { .text("inside \($0.uri)") }) { origin in
            try await withScriptedProxy(tls: try pki.serverIdentity(), { _ in .tunnel() }) { trusted in
                let proxy = try Proxy(parsing: trusted.url)
                let session = Session(configuration: Self.configuration(ProxyConfiguration(all: proxy), ca: ca))
                let (data, _) = try await session.data(for: request(origin.baseURL + "/x"))
                #expect(String(decoding: data, as: UTF8.self) == "inside /x")
                #expect(trusted.heads.map(\.requestLine) == ["CONNECT localhost:\(origin.port) HTTP/1.1"])
            }
            try await withScriptedProxy(tls: try TestCertificates.selfSigned(), { _ in .tunnel() }) { untrusted in
                let proxy = try Proxy(parsing: untrusted.url)
                let session = Session(configuration: Self.configuration(ProxyConfiguration(all: proxy), ca: ca))
                let error = await sessionError { () async throws(SessionError) in _ = try await session.data(for: request(origin.baseURL + "/x")) }
                #expect(error?.category == .tls, "\(String(describing: error))")
                #expect(error?.message.contains("proxy https://localhost:\(untrusted.port)") == true, "\(String(describing: error))")
                #expect(untrusted.heads.isEmpty)
            }
        }
    }

    /// Plain http through a forward proxy that keeps connections alive: one connection carries
    /// every request, each in absolute form with the origin's Host.
    @Test func forwardProxyConnectionsAreKeptAlive() async throws {
        try await withServer({ .text("proxied \($0.uri)") }) { forwardProxy in
            let origin = "http://origin.test:8080"
            let proxy = try Proxy(parsing: forwardProxy.baseURL)
            let session = Session(configuration: Self.configuration(ProxyConfiguration(http: proxy)))
            for index in 0..<4 {
                let (data, _) = try await session.data(for: request("\(origin)/\(index)"))
                #expect(String(decoding: data, as: UTF8.self) == "proxied \(origin)/\(index)")
            }
            #expect(forwardProxy.connectionCount == 1)
            #expect(forwardProxy.requests.map(\.uri) == (0..<4).map { "\(origin)/\($0)" })
            #expect(forwardProxy.requests.allSatisfy { $0.header("Host") == "origin.test:8080" })
        }
    }

    /// Tunnels are pooled per (proxy, origin): requests to one origin share one CONNECT, a second
    /// origin gets its own.
    @Test func tunnelsArePooledPerOrigin() async throws {
        let pki = try TestCertificates.make()
        let ca = try pki.writeCA(to: try makeTemporaryDirectory())
        try await withScriptedProxy({ _ in .tunnel() }) { proxy in
            try await withServer(tls: try pki.serverIdentity(), { .text("one \($0.uri)") }) { one in
                try await withServer(tls: try pki.serverIdentity(), { .text("two \($0.uri)") }) { two in
                    let configuration = Self.configuration(ProxyConfiguration(https: try Proxy(parsing: proxy.url)), ca: ca)
                    let session = Session(configuration: configuration)
                    for index in 0..<3 {
                        #expect(try await session.data(for: request(one.baseURL + "/\(index)")).0 == Data("one /\(index)".utf8))
                        #expect(try await session.data(for: request(two.baseURL + "/\(index)")).0 == Data("two /\(index)".utf8))
                    }
                    #expect(proxy.heads.map(\.requestLine).sorted()
                            == ["CONNECT localhost:\(one.port) HTTP/1.1", "CONNECT localhost:\(two.port) HTTP/1.1"].sorted())
                    #expect(one.connectionCount == 1 && two.connectionCount == 1)
                }
            }
        }
    }
}
