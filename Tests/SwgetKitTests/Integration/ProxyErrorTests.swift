import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// Proxies that fail: each failure is one error of the right category, naming the proxy (never
/// its password) and what it said.
@Suite("Proxy failures (SwgetKit)")
struct ProxyErrorTests {
    /// Downloads `url` through `proxy` and returns the error.
    static func failure(_ url: String, through proxy: Proxy, ca: String? = nil) async throws -> SessionError? {
        let dir = try makeTemporaryDirectory()
        let session = Session(configuration: ProxyTests.configuration(ProxyConfiguration(all: proxy), ca: ca))
        let error = await sessionError { () async throws(SessionError) in _ = try await session.download(request(url), to: .directory(dir)) }
        #expect(files(in: dir).isEmpty)
        return error
    }

    @Test func unreachableProxyIsANetworkErrorNamingTheProxy() async throws {
        let refusing = try Nginx.refusingPort()  // nothing listens there, and nothing can start to
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let error = try await Self.failure("https://localhost:1/x", through: try Proxy(parsing: "http://alice:hidden@127.0.0.1:\(port)"))
        #expect(error?.category == .network)
        #expect(error?.message.contains("proxy http://alice:***@127.0.0.1:\(port)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("hidden") == false)
    }

    /// CONNECT answered with a refusal: the proxy's status line, as an HTTP status error.
    @Test(arguments: [(403, "Forbidden"), (502, "Bad Gateway"), (503, "Service Unavailable")])
    func connectRefusalCarriesTheStatusLine(status: Int, reason: String) async throws {
        try await withScriptedProxy({ _ in .respond(ScriptedProxy.status(status, reason: reason)) }) { proxy in
            let error = try await Self.failure("https://localhost:1/x", through: try Proxy(parsing: proxy.url))
            #expect(error?.category == .httpStatus, "\(String(describing: error))")
            #expect(error?.message.contains("HTTP/1.1 \(status) \(reason)") == true, "\(String(describing: error))")
            #expect(error?.message.contains("proxy http://127.0.0.1:\(proxy.port)") == true, "\(String(describing: error))")
            #expect(error?.response?.statusCode == status)
        }
    }

    /// Broken answers to CONNECT: protocol errors for garbage, network errors for silence.
    @Test(arguments: [
        (ScriptedProxy.Answer.respond(Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8)), SessionError.Category.protocol, "malformed proxy answer"),
        (.respond(Array("HTTP/1.1 200 Connection est".utf8)), .network, "closed the connection"),
        (.respond(Array("HTTP/1.1 2000 OK\r\n\r\n".utf8)), .protocol, "malformed proxy answer"),
        (.respond(Array("HTTP/1.1 200 OK\r\nBad Header Line\r\n\r\n".utf8)), .protocol, "malformed proxy answer"),
        (.close, .network, "closed the connection"),
    ])
    func brokenConnectAnswers(answer: ScriptedProxy.Answer, category: SessionError.Category, words: String) async throws {
        try await withScriptedProxy({ _ in answer }) { proxy in
            let error = try await Self.failure("https://localhost:1/x", through: try Proxy(parsing: proxy.url))
            #expect(error?.category == category, "\(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(String(describing: error))")
            #expect(error?.message.contains("proxy http://127.0.0.1:\(proxy.port)") == true, "\(String(describing: error))")
        }
    }

    /// A 2xx tunnel that then carries garbage instead of the origin's TLS is the origin's TLS
    /// failure, not a proxy one.
    @Test func tunnelToSomethingThatIsNotTLS() async throws {
        try await withServer({ _ in .text("plain") }) { plainOrigin in
            try await withScriptedProxy({ _ in .tunnel() }) { proxy in
                let error = try await Self.failure("https://127.0.0.1:\(plainOrigin.port)/x", through: try Proxy(parsing: proxy.url))
                #expect(error?.category == .tls, "\(String(describing: error))")
            }
        }
    }

    /// microsocks answers a CONNECT to a closed port with reply 5, in words.
    @Test(arguments: ["socks5", "socks5h"])
    func socksReplyCodeInWords(scheme: String) async throws {
        let socks = try await SocksServer.start()
        defer { socks.stop() }
        let refusing = try Nginx.refusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let closed = refusing.port
        let error = try await Self.failure("http://127.0.0.1:\(closed)/x", through: try Proxy(parsing: "\(scheme)://127.0.0.1:\(socks.port)"))
        #expect(error?.category == .network, "\(String(describing: error))")
        #expect(error?.message.contains("connection refused") == true, "\(String(describing: error))")
        #expect(error?.message.contains("\(scheme)://127.0.0.1:\(socks.port)") == true, "\(String(describing: error))")
    }

    /// SOCKS5 credentials refused, or missing where the server wants them: authentication errors.
    @Test(arguments: ["alice:wrong@", ""])
    func socksAuthenticationFailures(credentials: String) async throws {
        let socks = try await SocksServer.start(user: "alice", password: "right")
        defer { socks.stop() }
        let error = try await Self.failure("http://127.0.0.1:1/x", through: try Proxy(parsing: "socks5h://\(credentials)127.0.0.1:\(socks.port)"))
        #expect(error?.category == .authentication, "\(String(describing: error))")
        #expect(error?.message.contains("wrong") == false)
        #expect(socks.connections().isEmpty)
    }
}
