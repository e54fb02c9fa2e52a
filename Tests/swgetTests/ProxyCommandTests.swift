import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// What the proxy command tests share: origins serving one source with ranges, a CA to trust
/// the TLS one, and file helpers.
enum ProxyFixture {
    static let source = randomBytes(1_500_000, seed: 0x9_0C5)

    struct Origins {
        let plain: TestServer
        let secure: TestServer
        let ca: String
        /// The working directory of the runs.
        let work: String
        /// Where downloads go (`-P`): `work/out`.
        let dir: String
    }

    /// A plain and a TLS origin serving `source` at every path (ranges and an ETag), `handler`
    /// deciding instead when it returns a response; stopped after `body`.
    static func withOrigins<T>(_ handler: @escaping @Sendable (TestRequest) -> TestResponse? = { _ in nil },
                               _ body: (Origins) async throws -> T) async throws -> T {
        let pki = try TestCertificates.make()
        let dir = try makeTemporaryDirectory()
        let ca = try pki.writeCA(to: dir)
        let serve: @Sendable (TestRequest) -> TestResponse = { handler($0) ?? TestResponse.serving(source, to: $0, etag: "\"px\"") }
        let plain = try await TestServer.start(handler: serve)
        let secure = try await TestServer.start(tls: try pki.serverIdentity(), handler: serve)
        do {
            let result = try await body(Origins(plain: plain, secure: secure, ca: ca, work: dir, dir: dir + "/out"))
            try await plain.stop()
            try await secure.stop()
            return result
        } catch {
            try? await plain.stop()
            try? await secure.stop()
            throw error
        }
    }

    static func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    static func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    /// True when `path` holds exactly `source` (without printing megabytes when it does not).
    static func holdsSource(_ path: String) -> Bool { read(path) == source }

    /// The CONNECT and absolute-form request lines of a proxy, counted by method.
    static func count(_ method: String, in lines: [String]) -> Int { lines.filter { $0.hasPrefix(method + " ") }.count }
}

/// swget through real proxies (tinyproxy, microsocks), run as a user would: plain and TLS
/// downloads byte for byte, with and without authentication, resume, --split, -j, bypass, and a
/// proxy that dies mid-transfer.
@Suite("swget through proxies, end to end", .serialized)
struct ProxyCommandTests {
    enum Login: String, CaseIterable, Sendable {
        case none, inURL, percentEncodedInURL, options, userColonPassword
    }

    @Test(arguments: Login.allCases)
    func tinyproxyPlainAndTLS(login: Login) async throws {
        let proxy = try await login == .none ? ForwardProxy.start() : ForwardProxy.start(user: "alice", password: "s3cret.x")
        defer { proxy.stop() }
        let via: [String] = switch login {
        case .none: ["--proxy", proxy.url]
        case .inURL: ["--proxy", "http://alice:s3cret.x@127.0.0.1:\(proxy.port)"]
        case .percentEncodedInURL: ["--proxy", "http://%61lice:s3cret%2Ex@127.0.0.1:\(proxy.port)"]
        case .options: ["--proxy", proxy.url, "--proxy-user", "alice", "--proxy-password", "s3cret.x"]
        case .userColonPassword: ["--proxy", proxy.url, "--proxy-user", "alice:s3cret.x"]
        }
        try await ProxyFixture.withOrigins { o in
            let result = try await SwgetProcess.run(via + ["--ca-certificate", o.ca, "-P", o.dir,
                                                           o.plain.baseURL + "/plain.bin", o.secure.baseURL + "/secure.bin"], in: o.work)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ProxyFixture.holdsSource(o.dir + "/plain.bin"))
            #expect(ProxyFixture.holdsSource(o.dir + "/secure.bin"))
            #expect(ProxyFixture.list(o.dir) == ["plain.bin", "secure.bin"])
            let lines = proxy.requestLines()
            #expect(lines.contains("GET \(o.plain.baseURL)/plain.bin HTTP/1.1"), "\(lines)")
            #expect(lines.contains("CONNECT localhost:\(o.secure.port) HTTP/1.1"), "\(lines)")
            // Credentials were sent at once: no request was refused first.
            #expect(lines.count == 2, "\(lines)")
            #expect(o.secure.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
            #expect(!result.stderr.contains("s3cret"))
        }
    }

    @Test(arguments: ["socks5", "socks5h"], [false, true])
    func microsocksPlainAndTLS(scheme: String, withAuth: Bool) async throws {
        let socks = try await withAuth ? SocksServer.start(user: "alice", password: "pä ss:word") : SocksServer.start()
        defer { socks.stop() }
        let credentials = withAuth ? "alice:p%C3%A4%20ss%3Aword@" : ""
        try await ProxyFixture.withOrigins { o in
            let plain = "http://localhost:\(o.plain.port)/plain.bin"
            let result = try await SwgetProcess.run(["--proxy", "\(scheme)://\(credentials)127.0.0.1:\(socks.port)", "--ca-certificate", o.ca,
                                                     "-P", o.dir, plain, o.secure.baseURL + "/secure.bin"], in: o.work)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ProxyFixture.holdsSource(o.dir + "/plain.bin"))
            #expect(ProxyFixture.holdsSource(o.dir + "/secure.bin"))
            let connections = socks.connections()
            #expect(connections.count == 2, "\(connections)")
            // socks5h: the proxy was given the name; socks5: swget resolved it.
            #expect(connections.allSatisfy { $0.hasPrefix("localhost:") } == (scheme == "socks5h"), "\(connections)")
            #expect(!result.stderr.contains("ss:word") && !result.stderr.contains("ss%3Aword"))
        }
    }

    /// A body cut by the origin: the part is kept; the rerun through the proxy asks for the rest.
    @Test(arguments: [false, true])
    func resumeAfterACutThroughTheProxy(tls: Bool) async throws {
        let proxy = try await ForwardProxy.start()
        defer { proxy.stop() }
        let first = Mutex(true)
        try await ProxyFixture.withOrigins({ request in
            guard first.withLock({ let was = $0; $0 = false; return was }) else { return nil }
            return TestResponse.serving(ProxyFixture.source, to: request, etag: "\"px\"").closing(afterBodyBytes: 600_000)
        }) { o in
            let url = (tls ? o.secure.baseURL : o.plain.baseURL) + "/data.bin"
            let arguments = ["-q", "--proxy", proxy.url, "--ca-certificate", o.ca, "-P", o.dir, url]
            let cut = try await SwgetProcess.run(["-t", "1"] + arguments, in: o.work)
            #expect(cut.status == 4, "\(cut.stderr)")
            #expect(ProxyFixture.list(o.dir) == ["data.bin.part", "data.bin.swget"])
            let rerun = try await SwgetProcess.run(arguments, in: o.work)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(ProxyFixture.holdsSource(o.dir + "/data.bin"))
            #expect(ProxyFixture.list(o.dir) == ["data.bin"])
            let origin = tls ? o.secure : o.plain
            #expect(origin.requests.map { $0.header("Range") ?? "-" } == ["-", "bytes=600000-"])
            #expect(ProxyFixture.count(tls ? "CONNECT" : "GET", in: proxy.requestLines()) == 2)
        }
    }

    /// --split 4 through the proxy: several tunnels, ranged requests, one identical file.
    @Test func splitFourThroughTheProxy() async throws {
        let proxy = try await ForwardProxy.start()
        defer { proxy.stop() }
        try await ProxyFixture.withOrigins { o in
            let result = try await SwgetProcess.run(["-q", "--split", "4", "--min-split-size", "200K", "--proxy", proxy.url, "--ca-certificate", o.ca,
                                                     "-P", o.dir, o.secure.baseURL + "/split.bin"], in: o.work)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ProxyFixture.holdsSource(o.dir + "/split.bin"))
            let ranged = o.secure.requests.filter { $0.header("Range") != nil }
            #expect(ranged.count >= 3, "\(o.secure.requests.map { $0.header("Range") ?? "-" })")
            let connects = ProxyFixture.count("CONNECT", in: proxy.requestLines())
            #expect(connects >= 2 && connects == o.secure.connectionCount, "\(proxy.requestLines())")
        }
    }

    /// -j 8 over one proxy: tunnels are kept alive and pooled per (proxy, origin), so 24 files
    /// need about 8 CONNECTs, far fewer than 24. tinyproxy closes every absolute-form request's connection, and
    /// the plain files still all arrive.
    @Test func parallelDownloadsOverOneProxy() async throws {
        let proxy = try await ForwardProxy.start()
        defer { proxy.stop() }
        try await ProxyFixture.withOrigins { o in
            let secure = (0..<24).map { o.secure.baseURL + "/s\($0).bin" }
            let plain = (0..<12).map { o.plain.baseURL + "/p\($0).bin" }
            let result = try await SwgetProcess.run(["-q", "-j", "8", "--proxy", proxy.url, "--ca-certificate", o.ca, "-P", o.dir]
                                                    + secure + plain, in: o.work, timeout: .seconds(120))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ProxyFixture.list(o.dir).count == 36)
            #expect(ProxyFixture.holdsSource(o.dir + "/s23.bin") && ProxyFixture.holdsSource(o.dir + "/p11.bin"))
            let lines = proxy.requestLines()
            let connects = ProxyFixture.count("CONNECT", in: lines)
            // At most one tunnel per parallel slot, plus a few where a slow head let the pool
            // close idle tunnels to the same origin (the starvation rule); never one per file.
            #expect((1...12).contains(connects), "\(connects) CONNECTs for 24 files")
            #expect(o.secure.connectionCount == connects)
            #expect(o.secure.requests.count == 24)
            #expect(ProxyFixture.count("GET", in: lines) == 12)
        }
    }

    /// Hosts in --noproxy (or no_proxy) are reached directly: the proxy's log shows nothing.
    @Test(arguments: [["--noproxy", "localhost,127.0.0.1"], ["--noproxy", "*"], ["--noproxy", "127.0.0.0/8"]])
    func noProxyBypassesTheProxy(arguments bypass: [String]) async throws {
        let proxy = try await ForwardProxy.start()
        defer { proxy.stop() }
        try await ProxyFixture.withOrigins { o in
            let result = try await SwgetProcess.run(["-q", "--proxy", proxy.url, "--ca-certificate", o.ca, "-P", o.dir,
                                                     o.plain.baseURL + "/a.bin", "https://127.0.0.1:\(o.secure.port)/b.bin"] + bypass,
                                                    in: o.work)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(proxy.requestLines().isEmpty, "\(proxy.requestLines())")
            #expect(o.plain.requests.map(\.uri) == ["/a.bin"])
            #expect(o.secure.requests.map(\.uri) == ["/b.bin"])
        }
    }

    /// The proxy dies mid-transfer: exit 4 naming the proxy, the part kept; the rerun through a
    /// new proxy continues from where the bytes stopped.
    @Test func proxyDyingMidTransfer() async throws {
        let first = Mutex(true)
        try await ProxyFixture.withOrigins({ request in
            guard first.withLock({ let was = $0; $0 = false; return was }) else { return nil }
            return TestResponse.serving(ProxyFixture.source, to: request, etag: "\"px\"").stalling(afterBodyBytes: 500_000)
        }) { o in
            let doomed = try await ForwardProxy.start()
            defer { doomed.stop() }
            let arguments = ["-q", "-t", "2", "--waitretry", "0", "--ca-certificate", o.ca, "-P", o.dir, o.secure.baseURL + "/data.bin"]
            async let run = SwgetProcess.run(["--proxy", doomed.url] + arguments, in: o.work)
            // Wait (bounded) until the stalled body's bytes are on disk, then kill the proxy.
            var held = 0
            for _ in 0..<1000 where held < 500_000 {
                held = (try? FileManager.default.attributesOfItem(atPath: o.dir + "/data.bin.part")[.size] as? Int) ?? 0
                if held < 500_000 { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(held == 500_000)
            doomed.stop()
            let died = try await run
            #expect(died.status == 4, "\(died.stderr)")
            let lines = died.stderr.split(separator: "\n")
            #expect(lines.last?.contains("proxy http://127.0.0.1:\(doomed.port)") == true, "\(died.stderr)")
            #expect(ProxyFixture.list(o.dir) == ["data.bin.part", "data.bin.swget"])

            let replacement = try await ForwardProxy.start()
            defer { replacement.stop() }
            let rerun = try await SwgetProcess.run(["--proxy", replacement.url] + arguments, in: o.work)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(ProxyFixture.holdsSource(o.dir + "/data.bin"))
            #expect(o.secure.requests.last?.header("Range") == "bytes=500000-")
        }
    }
}
