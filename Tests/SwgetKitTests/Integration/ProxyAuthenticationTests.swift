import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// Proxy authentication through the library, checked on both sides of the wire: what each proxy
/// received (ScriptedProxy records every head) and what each origin received. The proxy's
/// credential never reaches an origin, an origin's never reaches a proxy, and one proxy's never
/// reaches another.
@Suite("Proxy authentication (SwgetKit)")
struct ProxyAuthenticationTests {
    static let challenge = "Basic realm=\"corp\""

    /// A script that wants `Proxy-Authorization: expected` on CONNECT (407 otherwise), then tunnels.
    static func demanding(_ expected: String) -> @Sendable (ScriptedProxy.Head) -> ScriptedProxy.Answer {
        { head in
            head.header("Proxy-Authorization") == expected ? .tunnel()
                : .respond(ScriptedProxy.status(407, reason: "Proxy Authentication Required", challenge: challenge))
        }
    }

    /// Records the challenges it is asked about and answers proxy ones with `credential`.
    final class ProxyCredentialDelegate: SessionDelegate {
        let spaces = Mutex<[ProtectionSpace]>([])
        let credential: Credential?
        init(_ credential: Credential?) { self.credential = credential }
        func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> AuthChallengeDisposition {
            spaces.withLock { $0.append(challenge.protectionSpace) }
            guard challenge.protectionSpace.isProxy, let credential else { return .performDefaultHandling }
            return .useCredential(credential)
        }
    }

    static func tlsOrigin<T>(_ handler: @escaping @Sendable (TestRequest) -> TestResponse,
                             _ body: (TestServer, String) async throws -> T) async throws -> T {
        let pki = try TestCertificates.make()
        let ca = try pki.writeCA(to: try makeTemporaryDirectory())
        return try await withServer(tls: try pki.serverIdentity(), handler) { try await body($0, ca) }
    }

    /// Preemptive Basic on CONNECT from the proxy URL; the origin's own credential (from its URL)
    /// goes inside the tunnel only, and the origin never sees the proxy's.
    @Test func connectCarriesTheProxyCredentialAndNothingOfTheOrigin() async throws {
        let origin = basic("bob", "origin-pw")
        try await Self.tlsOrigin({ $0.header("Authorization") == origin ? .text("ok") : .status(401).withHeader("WWW-Authenticate", "Basic realm=\"o\"") }) { server, ca in
            try await withScriptedProxy(Self.demanding(basic("alice", "proxy-pw"))) { proxy in
                let configuration = ProxyTests.configuration(ProxyConfiguration(https: try Proxy(parsing: "http://alice:proxy-pw@127.0.0.1:\(proxy.port)")), ca: ca)
                let (data, response) = try await Session(configuration: configuration)
                    .data(for: request("https://bob:origin-pw@localhost:\(server.port)/secret"))
                #expect(response.statusCode == 200 && data == Data("ok".utf8))
                #expect(proxy.heads.allSatisfy { $0.method == "CONNECT" && $0.header("Authorization") == nil })
                #expect(proxy.heads.allSatisfy { $0.header("Proxy-Authorization") == basic("alice", "proxy-pw") })
                #expect(server.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
                #expect(Set(server.requests.compactMap { $0.header("Authorization") }) == [origin])
            }
        }
    }

    /// An origin's 401 is never answered with the proxy's credential.
    @Test func originChallengeIsNeverAnsweredWithTheProxyCredential() async throws {
        try await Self.tlsOrigin({ _ in .status(401).withHeader("WWW-Authenticate", "Basic realm=\"o\"") }) { server, ca in
            try await withScriptedProxy({ _ in .tunnel() }) { proxy in
                let configuration = ProxyTests.configuration(ProxyConfiguration(https: try Proxy(parsing: "http://alice:proxy-pw@127.0.0.1:\(proxy.port)")), ca: ca)
                let (_, response) = try await Session(configuration: configuration).data(for: request(server.baseURL + "/x"))
                #expect(response.statusCode == 401)
                #expect(server.requests.allSatisfy { $0.credentialFields.isEmpty }, "\(server.requests.map(\.credentialFields))")
            }
        }
    }

    /// A 407 to CONNECT goes through the challenge machine: the delegate is asked about the
    /// proxy's own protection space (NSURLProtectionSpace's proxy host and port), and its
    /// credential opens the tunnel.
    @Test func connect407AsksTheDelegateAboutTheProxysSpace() async throws {
        try await Self.tlsOrigin({ _ in .text("inside") }) { server, ca in
            try await withScriptedProxy(Self.demanding(basic("carol", "pw"))) { proxy in
                let delegate = ProxyCredentialDelegate(Credential(user: "carol", password: "pw", persistence: .forSession))
                let configuration = ProxyTests.configuration(ProxyConfiguration(https: try Proxy(parsing: proxy.url)), ca: ca)
                let (data, _) = try await Session(configuration: configuration, delegate: delegate).data(for: request(server.baseURL + "/x"))
                #expect(data == Data("inside".utf8))
                #expect(proxy.heads.map { $0.header("Proxy-Authorization") ?? "-" } == ["-", basic("carol", "pw")])
                let spaces = delegate.spaces.withLock { $0 }
                #expect(spaces == [ProtectionSpace(host: "127.0.0.1", port: proxy.port, scheme: "http", realm: "corp",
                                                   authenticationMethod: .httpBasic, isProxy: true)])
            }
        }
    }

    /// Default handling finds a proxy credential stored for the proxy's space.
    @Test func connect407IsAnsweredFromTheCredentialStorage() async throws {
        try await Self.tlsOrigin({ _ in .text("inside") }) { server, ca in
            try await withScriptedProxy(Self.demanding(basic("dave", "pw"))) { proxy in
                var configuration = ProxyTests.configuration(ProxyConfiguration(https: try Proxy(parsing: proxy.url)), ca: ca)
                configuration.credentialStorage = CredentialStorage()
                configuration.credentialStorage.set(Credential(user: "dave", password: "pw", persistence: .forSession),
                                                    for: ProtectionSpace(host: "127.0.0.1", port: proxy.port, scheme: "http", realm: "corp",
                                                                         authenticationMethod: .httpBasic, isProxy: true))
                let (data, _) = try await Session(configuration: configuration).data(for: request(server.baseURL + "/x"))
                #expect(data == Data("inside".utf8))
                #expect(proxy.heads.last?.header("Proxy-Authorization") == basic("dave", "pw"))
            }
        }
    }

    /// A proxy that keeps answering 407 ends the task with an authentication error after a
    /// bounded number of attempts.
    @Test func connect407LoopIsAnAuthenticationError() async throws {
        try await Self.tlsOrigin({ _ in .text("never") }) { server, ca in
            try await withScriptedProxy(Self.demanding("never this")) { proxy in
                let configuration = ProxyTests.configuration(ProxyConfiguration(https: try Proxy(parsing: "http://eve:wrong@127.0.0.1:\(proxy.port)")), ca: ca)
                let dir = try makeTemporaryDirectory()
                let error = await sessionError { () async throws(SessionError) in
                    _ = try await Session(configuration: configuration).download(request(server.baseURL + "/x"), to: .directory(dir))
                }
                #expect(error?.category == .authentication, "\(String(describing: error))")
                #expect(error?.message.contains("407") == true, "\(String(describing: error))")
                #expect((1...2).contains(proxy.heads.count), "\(proxy.heads.map(\.requestLine))")
                #expect(server.requests.isEmpty)
            }
        }
    }

    /// Plain http through a forward proxy: a 407 in absolute form is a proxy challenge, answered
    /// by the delegate for the proxy's space; the retry carries `Proxy-Authorization`.
    @Test func absoluteForm407IsAProxyChallenge() async throws {
        try await withServer({ request in
            request.header("Proxy-Authorization") == basic("carol", "pw") ? .text("via proxy")
                : .status(407).withHeader("Proxy-Authenticate", Self.challenge)
        }) { forwardProxy in
            let delegate = ProxyCredentialDelegate(Credential(user: "carol", password: "pw", persistence: .forSession))
            let configuration = ProxyTests.configuration(ProxyConfiguration(http: try Proxy(parsing: forwardProxy.baseURL)))
            let (data, response) = try await Session(configuration: configuration, delegate: delegate).data(for: request("http://origin.test/x"))
            #expect(response.statusCode == 200 && data == Data("via proxy".utf8))
            #expect(forwardProxy.requests.map { $0.header("Proxy-Authorization") ?? "-" } == ["-", basic("carol", "pw")])
            #expect(delegate.spaces.withLock { $0 }.map(\.host) == ["127.0.0.1"])
        }
    }

    /// Wrong credentials in the proxy URL: 407 after credentials ends a download with an
    /// authentication error naming the proxy.
    @Test func absoluteForm407AfterCredentialsIsAnAuthenticationError() async throws {
        try await withServer({ _ in .status(407).withHeader("Proxy-Authenticate", Self.challenge) }) { forwardProxy in
            let configuration = ProxyTests.configuration(ProxyConfiguration(http: try Proxy(parsing: "http://eve:wrong@127.0.0.1:\(forwardProxy.port)")))
            let dir = try makeTemporaryDirectory()
            let error = await sessionError { () async throws(SessionError) in
                _ = try await Session(configuration: configuration).download(request("http://origin.test/x"), to: .directory(dir))
            }
            #expect(error?.category == .authentication, "\(String(describing: error))")
            #expect(error?.message.contains("proxy") == true, "\(String(describing: error))")
            #expect((1...2).contains(forwardProxy.requests.count))
            #expect(files(in: dir).isEmpty)
        }
    }

    /// A redirect from a proxied URL to a host in `noProxy` goes direct, without the proxy's
    /// credential.
    @Test func redirectToABypassedHostDropsTheProxyCredential() async throws {
        try await withServer({ $0.credentialFields.isEmpty ? .text("direct") : .status(400) }) { direct in
            try await withServer({ _ in .redirect(302, to: "http://localhost:\(direct.port)/landed") }) { forwardProxy in
                let proxy = try Proxy(parsing: "http://alice:pw@127.0.0.1:\(forwardProxy.port)")
                let configuration = ProxyTests.configuration(ProxyConfiguration(http: proxy, noProxy: try NoProxy(parsing: "localhost")))
                let (data, _) = try await Session(configuration: configuration).data(for: request("http://origin.test/start"))
                #expect(data == Data("direct".utf8))
                #expect(forwardProxy.requests.map { $0.header("Proxy-Authorization") } == [basic("alice", "pw")])
                #expect(direct.requests.map(\.uri) == ["/landed"])
                #expect(direct.requests.allSatisfy { $0.credentialFields.isEmpty })
            }
        }
    }

    /// One proxy's credential never goes to another: an http URL through proxy A (which has
    /// credentials) redirects to an https URL through proxy B (which has none and asks).
    @Test func oneProxysCredentialNeverReachesAnother() async throws {
        try await Self.tlsOrigin({ _ in .text("secure") }) { server, ca in
            try await withScriptedProxy({ _ in .respond(ScriptedProxy.status(407, challenge: Self.challenge)) }) { proxyB in
                try await withServer({ _ in .redirect(302, to: server.baseURL + "/y") }) { proxyA in
                    let configuration = ProxyTests.configuration(ProxyConfiguration(
                        http: try Proxy(parsing: "http://alice:a-secret@127.0.0.1:\(proxyA.port)"),
                        https: try Proxy(parsing: proxyB.url)), ca: ca)
                    let dir = try makeTemporaryDirectory()
                    let error = await sessionError { () async throws(SessionError) in
                        _ = try await Session(configuration: configuration).download(request("http://origin.test/x"), to: .directory(dir))
                    }
                    #expect(error?.category == .authentication, "\(String(describing: error))")
                    #expect(proxyA.requests.count == 1)
                    #expect(!proxyB.heads.isEmpty)
                    #expect(proxyB.heads.allSatisfy { $0.header("Proxy-Authorization") == nil }, "\(proxyB.heads.map(\.headers))")
                }
            }
        }
    }
}
