import Foundation
import Testing
import SwgetTestSupport

/// Where the proxy comes from: the environment with curl's rules, and the options that override
/// it. A scripted proxy answers absolute-form requests itself ("via proxy") and tunnels CONNECT
/// to the origin ("direct" content, but a CONNECT in its record), so each run shows its route.
@Suite("swget proxy settings: environment and options")
struct ProxyEnvironmentTests {
    enum Target: String, Sendable { case plain, tls }
    enum Route: String, Sendable { case proxied, tunnelled, direct }

    /// One case: variables and arguments with `PROXY` (the scripted proxy's URL), `PPORT` (its
    /// port), `OPORT` (the plain origin's port) replaced; what is fetched; the route expected.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let environment: [String: String]
        var arguments: [String] = []
        let target: Target
        let route: Route
        var testDescription: String { name }
    }

    static let dead = "http://127.0.0.1:1"

    static let cases: [Case] = [
        Case(name: "http_proxy is used", environment: ["http_proxy": "PROXY"], target: .plain, route: .proxied),
        Case(name: "HTTP_PROXY is ignored (httpoxy)", environment: ["HTTP_PROXY": "PROXY"], target: .plain, route: .direct),
        Case(name: "http_proxy is not for https", environment: ["http_proxy": "PROXY"], target: .tls, route: .direct),
        Case(name: "https_proxy", environment: ["https_proxy": "PROXY"], target: .tls, route: .tunnelled),
        Case(name: "HTTPS_PROXY", environment: ["HTTPS_PROXY": "PROXY"], target: .tls, route: .tunnelled),
        Case(name: "https_proxy wins over HTTPS_PROXY", environment: ["https_proxy": "PROXY", "HTTPS_PROXY": dead], target: .tls, route: .tunnelled),
        Case(name: "https_proxy is not for http", environment: ["https_proxy": "PROXY"], target: .plain, route: .direct),
        Case(name: "all_proxy for http", environment: ["all_proxy": "PROXY"], target: .plain, route: .proxied),
        Case(name: "ALL_PROXY for https", environment: ["ALL_PROXY": "PROXY"], target: .tls, route: .tunnelled),
        Case(name: "http_proxy wins over all_proxy", environment: ["http_proxy": "PROXY", "all_proxy": dead], target: .plain, route: .proxied),
        Case(name: "a proxy URL without a scheme is http", environment: ["all_proxy": "127.0.0.1:PPORT"], target: .plain, route: .proxied),
        Case(name: "no_proxy address", environment: ["all_proxy": "PROXY", "no_proxy": "127.0.0.1"], target: .plain, route: .direct),
        Case(name: "NO_PROXY *", environment: ["all_proxy": "PROXY", "NO_PROXY": "*"], target: .tls, route: .direct),
        Case(name: "no_proxy name", environment: ["all_proxy": "PROXY", "no_proxy": "example.com, localhost"], target: .tls, route: .direct),
        Case(name: "no_proxy leading dot", environment: ["all_proxy": "PROXY", "no_proxy": ".localhost"], target: .tls, route: .direct),
        Case(name: "no_proxy is not a substring match", environment: ["all_proxy": "PROXY", "no_proxy": "calhost"], target: .tls, route: .tunnelled),
        Case(name: "no_proxy CIDR", environment: ["all_proxy": "PROXY", "no_proxy": "127.0.0.0/8"], target: .plain, route: .direct),
        Case(name: "no_proxy other CIDRs", environment: ["all_proxy": "PROXY", "no_proxy": "10.0.0.0/8,192.168.0.0/16,::1"], target: .plain, route: .proxied),
        Case(name: "no_proxy with the port", environment: ["all_proxy": "PROXY", "no_proxy": "127.0.0.1:OPORT"], target: .plain, route: .direct),
        Case(name: "no_proxy with another port", environment: ["all_proxy": "PROXY", "no_proxy": "127.0.0.1:1"], target: .plain, route: .proxied),
        Case(name: "no_proxy wins over NO_PROXY", environment: ["all_proxy": "PROXY", "no_proxy": "example.com", "NO_PROXY": "*"], target: .plain, route: .proxied),
        Case(name: "malformed HTTP_PROXY is ignored too", environment: ["HTTP_PROXY": "http://[::1"], target: .plain, route: .direct),
        Case(name: "--no-proxy overrides the environment", environment: ["http_proxy": dead, "https_proxy": dead],
             arguments: ["--no-proxy"], target: .plain, route: .direct),
        Case(name: "-e use_proxy=off", environment: ["all_proxy": dead], arguments: ["-e", "use_proxy=off"], target: .tls, route: .direct),
        Case(name: "--proxy overrides http_proxy", environment: ["http_proxy": dead], arguments: ["--proxy", "PROXY"], target: .plain, route: .proxied),
        Case(name: "--proxy serves https too", environment: [:], arguments: ["--proxy", "PROXY"], target: .tls, route: .tunnelled),
        Case(name: "--noproxy overrides no_proxy", environment: ["all_proxy": "PROXY", "no_proxy": "*"],
             arguments: ["--noproxy", "example.com"], target: .plain, route: .proxied),
        Case(name: "--noproxy with the environment's proxy", environment: ["https_proxy": "PROXY"],
             arguments: ["--noproxy", "localhost"], target: .tls, route: .direct),
    ]

    @Test(arguments: cases)
    func route(_ c: Case) async throws {
        let pki = try TestCertificates.make()
        let work = try makeTemporaryDirectory()
        let ca = try pki.writeCA(to: work)
        try await withProxy { proxy in
            let plain = try await TestServer.start { _ in .text("direct") }
            let secure = try await TestServer.start(tls: try pki.serverIdentity()) { _ in .text("direct") }
            func fill(_ text: String) -> String {
                text.replacingOccurrences(of: "PROXY", with: proxy.url).replacingOccurrences(of: "PPORT", with: String(proxy.port))
                    .replacingOccurrences(of: "OPORT", with: String(plain.port))
            }
            let url = c.target == .plain ? plain.baseURL + "/f.txt" : secure.baseURL + "/f.txt"
            let result = try await SwgetProcess.run(["-q", "-t", "1", "--ca-certificate", ca, "-O", "-", url] + c.arguments.map(fill),
                                                    in: work, environment: c.environment.mapValues(fill))
            try await plain.stop()
            try await secure.stop()
            #expect(result.status == 0, "\(result.stderr)")
            let heads = proxy.heads.map(\.requestLine)
            switch c.route {
            case .proxied:
                #expect(result.stdoutText == "via proxy")
                #expect(heads == ["GET \(url) HTTP/1.1"])
            case .tunnelled:
                #expect(result.stdoutText == "direct")
                #expect(heads == ["CONNECT localhost:\(secure.port) HTTP/1.1"])
            case .direct:
                #expect(result.stdoutText == "direct")
                #expect(heads.isEmpty, "\(heads)")
            }
        }
    }

    /// A proxy that answers absolute-form requests itself and tunnels CONNECT.
    func withProxy(_ body: (ScriptedProxy) async throws -> Void) async throws {
        let proxy = try await ScriptedProxy.start { head in
            head.method == "CONNECT" ? .tunnel() : .respond(ScriptedProxy.status(200, reason: "OK", body: "via proxy"))
        }
        do {
            try await body(proxy)
            try await proxy.stop()
        } catch {
            try? await proxy.stop()
            throw error
        }
    }

    /// Malformed settings are usage errors (exit 2) on one line naming what is wrong, with the
    /// password masked; nothing is fetched.
    @Test(arguments: [
        ([:], ["--proxy", "http://[::1"], "malformed proxy URL"),
        ([:], ["--proxy", "http://user:topsecret@proxy.test/path"], "must not have a path"),
        ([:], ["--proxy", "ftp://proxy.test"], "unsupported proxy scheme 'ftp'"),
        ([:], ["--proxy", "http://proxy.test:99999"], "invalid proxy port"),
        ([:], ["--proxy", "http://proxy.test", "--noproxy", "10.0.0.0/33"], "invalid no_proxy entry '10.0.0.0/33'"),
        ([:], ["--proxy", "http://proxy.test", "--noproxy", "[::1"], "invalid no_proxy entry"),
        (["http_proxy": "http://user:topsecret@proxy.test:0"], [], "http_proxy: invalid proxy port"),
        (["https_proxy": "socks9://proxy.test"], [], "https_proxy: unsupported proxy scheme"),
        (["all_proxy": "http://proxy.test", "no_proxy": "host:port"], [], "no_proxy: invalid no_proxy entry 'host:port'"),
        (["all_proxy": "http://proxy.test", "NO_PROXY": "1.2.3.4/99"], [], "NO_PROXY: invalid no_proxy entry"),
    ] as [([String: String], [String], String)])
    func malformedSettingsAreUsageErrors(environment: [String: String], arguments: [String], words: String) async throws {
        let work = try makeTemporaryDirectory()
        try await withServer { server in
            let result = try await SwgetProcess.run(arguments + ["-q", server.baseURL + "/f.txt"], in: work, environment: environment)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(!result.stderr.contains("topsecret"))
            #expect(server.requests.isEmpty)
        }
    }

    func withServer(_ body: (TestServer) async throws -> Void) async throws {
        let server = try await TestServer.start { _ in .text("fetched") }
        do {
            try await body(server)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
