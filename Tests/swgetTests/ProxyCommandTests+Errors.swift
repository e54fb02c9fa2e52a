import Foundation
import Testing
import SwgetTestSupport

/// Proxy failures as the user sees them: one clear line naming the proxy (password masked) and
/// the documented exit code; `-S` shows the proxy's answer to CONNECT; credentials stay on their
/// own side of the proxy.
@Suite("swget proxy failures and what crosses the proxy", .serialized)
struct ProxyFailureCommandTests {
    /// The error lines of a run (those starting with "swget: " that are not warnings).
    static func errorLines(_ result: SwgetResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("swget: ") && !$0.hasPrefix("swget: warning") }
    }

    static func withScripted(_ script: @escaping @Sendable (ScriptedProxy.Head) -> ScriptedProxy.Answer,
                             _ body: (ScriptedProxy) async throws -> Void) async throws {
        let proxy = try await ScriptedProxy.start(script)
        do {
            try await body(proxy)
            try await proxy.stop()
        } catch {
            try? await proxy.stop()
            throw error
        }
    }

    @Test(arguments: ["http", "socks5h"])
    func unreachableProxyIsExit4NamingIt(scheme: String) async throws {
        let refusing = try Nginx.refusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await ProxyFixture.withOrigins { o in
            let result = try await SwgetProcess.run(["-q", "-t", "1", "--proxy", "\(scheme)://alice:hidden@127.0.0.1:\(port)",
                                                     "-P", o.dir, o.secure.baseURL + "/x.bin"], in: o.work)
            #expect(result.status == 4, "\(result.stderr)")
            let lines = Self.errorLines(result)
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("proxy \(scheme)://alice:***@127.0.0.1:\(port)") == true, "\(result.stderr)")
            #expect(!result.stderr.contains("hidden"))
            #expect(o.secure.requests.isEmpty)
        }
    }

    /// tinyproxy with Basic authentication: wrong or missing credentials end with exit 6, for
    /// plain http (407 in absolute form) and for https (tinyproxy answers CONNECT with 401 or 407).
    @Test(arguments: [false, true], ["", "alice:wrong@"])
    func proxyAuthenticationFailureIsExit6(tls: Bool, credentials: String) async throws {
        let proxy = try await ForwardProxy.start(user: "alice", password: "right")
        defer { proxy.stop() }
        try await ProxyFixture.withOrigins { o in
            let url = (tls ? o.secure.baseURL : o.plain.baseURL) + "/x.bin"
            let result = try await SwgetProcess.run(["-q", "-t", "3", "--waitretry", "0", "--ca-certificate", o.ca,
                                                     "--proxy", "http://\(credentials)127.0.0.1:\(proxy.port)", "-P", o.dir, url], in: o.work)
            #expect(result.status == 6, "\(result.stderr)")
            let lines = Self.errorLines(result)
            #expect(lines.count == 1 && lines.first?.contains("proxy") == true, "\(result.stderr)")
            #expect(!result.stderr.contains("wrong"))
            #expect(ProxyFixture.list(o.dir).isEmpty)
            #expect(proxy.requestLines().count <= 2, "\(proxy.requestLines())")
        }
    }

    /// CONNECT refused: exit 8 with the proxy's status line; a malformed answer: exit 7; a
    /// 407 loop: exit 6.
    @Test(arguments: [
        (ScriptedProxy.status(403, reason: "Forbidden"), Int32(8), "HTTP/1.1 403 Forbidden"),
        (ScriptedProxy.status(502, reason: "Bad Gateway"), 8, "HTTP/1.1 502 Bad Gateway"),
        (Array("HTTP/1.1 200\r\nno colon here\r\n\r\n".utf8), 7, "malformed proxy answer"),
        (Array("ICY 200 OK\r\n\r\n".utf8), 7, "malformed proxy answer"),
        (ScriptedProxy.status(407, reason: "Proxy Authentication Required", challenge: "Basic realm=\"x\""), 6, "407"),
    ])
    func connectAnswers(answer: [UInt8], status: Int32, words: String) async throws {
        try await Self.withScripted({ _ in .respond(answer) }) { proxy in
            try await ProxyFixture.withOrigins { o in
                let result = try await SwgetProcess.run(["-q", "-t", "2", "--waitretry", "0", "--proxy", "http://u:pw@127.0.0.1:\(proxy.port)",
                                                         "--ca-certificate", o.ca, "-P", o.dir, o.secure.baseURL + "/x.bin"], in: o.work)
                #expect(result.status == status, "\(result.stderr)")
                let lines = Self.errorLines(result)
                #expect(lines.count == 1, "\(result.stderr)")
                #expect(lines.first?.contains(words) == true, "\(result.stderr)")
                #expect(lines.first?.contains("proxy http://u:***@127.0.0.1:\(proxy.port)") == true, "\(result.stderr)")
                #expect(o.secure.requests.isEmpty)
                #expect(proxy.heads.count <= 2, "\(proxy.heads.map(\.requestLine))")
            }
        }
    }

    /// microsocks to a closed port answers "connection refused" (reply 5): exit 4, in words.
    @Test func socksReplyInWords() async throws {
        let socks = try await SocksServer.start()
        defer { socks.stop() }
        let work = try makeTemporaryDirectory()
        let refusing = try Nginx.refusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let closed = refusing.port
        let result = try await SwgetProcess.run(["-q", "-t", "1", "--proxy", socks.hostnameURL, "http://localhost:\(closed)/x"], in: work)
        #expect(result.status == 4, "\(result.stderr)")
        let lines = Self.errorLines(result)
        #expect(lines.count == 1 && lines.first?.contains("SOCKS5 proxy: connection refused") == true, "\(result.stderr)")
    }

    /// -S prints the proxy's answer to CONNECT before the origin's response; passwords appear
    /// nowhere: not on stderr, not in the state file kept for a resume.
    @Test func serverResponseShowsTheTunnelAndPasswordsAreMasked() async throws {
        let proxy = try await ForwardProxy.start(user: "alice", password: "pw.s3cret")
        defer { proxy.stop() }
        try await ProxyFixture.withOrigins({ request in
            TestResponse.serving(ProxyFixture.source, to: request, etag: "\"px\"").closing(afterBodyBytes: 300_000)
        }) { o in
            let result = try await SwgetProcess.run(["-S", "-d", "-t", "1", "--proxy", "http://alice:pw.s3cret@127.0.0.1:\(proxy.port)",
                                                     "--ca-certificate", o.ca, "-P", o.dir, o.secure.baseURL + "/data.bin"], in: o.work)
            #expect(result.status == 4, "\(result.stderr)")
            #expect(result.stderr.contains("Proxy tunnel:\n  HTTP/1.0 200 Connection established"), "\(result.stderr)")
            let tunnel = try #require(result.stderr.range(of: "Proxy tunnel:"))
            let origin = try #require(result.stderr.range(of: "HTTP/1.1 200"))
            #expect(tunnel.lowerBound < origin.lowerBound)
            #expect(!result.stderr.contains("s3cret"), "\(result.stderr)")
            #expect(!result.stderr.contains(Data("alice:pw.s3cret".utf8).base64EncodedString()))
            #expect(ProxyFixture.list(o.dir) == ["data.bin.part", "data.bin.swget"])
            let state = try String(contentsOfFile: o.dir + "/data.bin.swget", encoding: .utf8)
            #expect(!state.contains("s3cret") && !state.contains(Data("alice:pw.s3cret".utf8).base64EncodedString()))
        }
    }

    /// The origin's credentials go inside the tunnel only: the CONNECT carries the proxy's
    /// credential and no `Authorization`; the origin never sees `Proxy-Authorization`.
    @Test func credentialsStayOnTheirSideOfTheProxy() async throws {
        let origin = "Basic " + Data("bob:origin-pw".utf8).base64EncodedString()
        let proxyCredential = "Basic " + Data("alice:proxy-pw".utf8).base64EncodedString()
        try await Self.withScripted({ head in
            head.header("Proxy-Authorization") == proxyCredential ? .tunnel()
                : .respond(ScriptedProxy.status(407, challenge: "Basic realm=\"p\""))
        }) { proxy in
            try await ProxyFixture.withOrigins({ request in
                request.header("Authorization") == origin ? nil : .status(401).withHeader("WWW-Authenticate", "Basic realm=\"o\"")
            }) { o in
                let result = try await SwgetProcess.run(["-q", "--proxy", "http://alice:proxy-pw@127.0.0.1:\(proxy.port)",
                                                         "--user", "bob", "--password", "origin-pw", "--ca-certificate", o.ca,
                                                         "-P", o.dir, o.secure.baseURL + "/data.bin"], in: o.work)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(ProxyFixture.holdsSource(o.dir + "/data.bin"))
                #expect(!proxy.heads.isEmpty)
                #expect(proxy.heads.allSatisfy { $0.header("Authorization") == nil && $0.header("Proxy-Authorization") == proxyCredential })
                #expect(o.secure.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
                #expect(o.secure.requests.last?.header("Authorization") == origin)
            }
        }
    }
}
