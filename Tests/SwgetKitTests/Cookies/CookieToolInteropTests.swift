import Foundation
import Testing
import SwgetTestSupport
@testable import SwgetKit

/// Cookie files written by the real curl and wget (Debian's packages) are read, written back, and read
/// again by curl and wget, which then send the cookies to a server that echoes its Cookie header. The
/// server is a small python3 http.server on 127.0.0.1; curl reaches www.example.test through `--resolve`,
/// wget through the server acting as its HTTP proxy, so that domain cookies can be tested without DNS.
@Suite("Cookie files from and for curl and wget", .serialized)
struct CookieToolInteropTests {
    /// Every cookie the server's /set answer sets, as "name=value".
    static let sent: Set<String> = ["plain=v1", "dom=v2", "persist=v3", "empty=", "exp=v7"]

    @Test func curlJarRoundTrip() async throws {
        let server = try await EchoServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let curlJar = directory + "/curl.txt"
        try await server.curl(["-c", curlJar, "-o", "/dev/null"], host: "www.example.test", path: "/set")
        let contents = try NetscapeCookieFile.load(path: curlJar, now: Date())
        #expect(contents.warnings.isEmpty)
        let byName = Dictionary(uniqueKeysWithValues: contents.cookies.map { ($0.name, $0) })
        #expect(Set(byName.keys) == ["plain", "dom", "persist", "empty", "deep", "exp"])
        #expect(byName["dom"]?.domain == "example.test" && byName["dom"]?.hostOnly == false)
        #expect(byName["plain"]?.domain == "www.example.test" && byName["plain"]?.hostOnly == true)
        #expect(byName["persist"]?.httpOnly == true && byName["persist"]?.expiresAt != nil)
        #expect(byName["exp"]?.expiresAt == Date(timeIntervalSince1970: 4_116_219_494))
        #expect(byName["deep"]?.path == "/set/deeper" && byName["empty"]?.value == "")
        #expect(byName["plain"]?.isSessionCookie == true)

        // Written back by us, read by curl and by wget.
        let ours = directory + "/ours.txt"
        try NetscapeCookieFile.save(contents.cookies, to: ours, includeSessionCookies: true, now: Date())
        try await expectSent(server, jar: ours, host: "www.example.test", path: "/echo", Self.sent)
        try await expectSent(server, jar: ours, host: "www.example.test", path: "/set/deeper/x", Self.sent.union(["deep=v5"]))
        try await expectSent(server, jar: ours, host: "other.example.test", path: "/echo", ["dom=v2"])
        try await expectSent(server, jar: ours, host: "example.org", path: "/echo", [])
        // Without session cookies only the persistent ones remain.
        try NetscapeCookieFile.save(contents.cookies, to: ours, includeSessionCookies: false, now: Date())
        try await expectSent(server, jar: ours, host: "www.example.test", path: "/echo", ["persist=v3", "exp=v7"])
    }

    @Test func wgetJarRoundTrip() async throws {
        let server = try await EchoServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wgetJar = directory + "/wget.txt"
        try await server.wget(["--keep-session-cookies", "--save-cookies", wgetJar, "-O", "/dev/null"], host: "www.example.test", path: "/set")
        let text = try String(contentsOfFile: wgetJar, encoding: .utf8)
        #expect(text.contains("www.example.test:\(server.port)\t"))                       // wget's host:port form
        let contents = try NetscapeCookieFile.load(path: wgetJar, now: Date())
        #expect(contents.warnings.isEmpty)
        let byName = Dictionary(uniqueKeysWithValues: contents.cookies.map { ($0.name, $0) })
        #expect(Set(byName.keys) == ["plain", "dom", "persist", "empty", "exp"])           // wget refuses "deep"
        #expect(byName["plain"]?.domain == "www.example.test" && byName["dom"]?.hostOnly == false)

        let ours = directory + "/ours.txt"
        try NetscapeCookieFile.save(contents.cookies, to: ours, includeSessionCookies: true, now: Date())
        try await expectSent(server, jar: ours, host: "www.example.test", path: "/echo", Self.sent)
        try await expectSent(server, jar: ours, host: "other.example.test", path: "/echo", ["dom=v2"])
    }

    /// A store fed the server's Set-Cookie values, saved, then loaded by curl and wget: what a
    /// `--save-cookies` file from swget must allow.
    @Test func storeSavedForCurlAndWget() async throws {
        let server = try await EchoServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = CookieStorage()
        let outcomes = store.setCookies(from: EchoServer.setCookies, for: cookieURL("http://www.example.test:\(server.port)/set"), mainDocumentURL: nil)
        #expect(outcomes.allSatisfy { $0.isStored })
        let ours = directory + "/store.txt"
        try NetscapeCookieFile.save(store.cookiesToSave(keepSessionCookies: true), to: ours, includeSessionCookies: true, now: Date())
        try await expectSent(server, jar: ours, host: "www.example.test", path: "/set/deeper/x", Self.sent.union(["deep=v5"]))
        try await expectSent(server, jar: ours, host: "other.example.test", path: "/x", ["dom=v2"])
        // And what curl saves after reading ours is still ours.
        let resaved = directory + "/resaved.txt"
        try await server.curl(["-b", ours, "-c", resaved, "-o", "/dev/null"], host: "www.example.test", path: "/echo")
        let again = try NetscapeCookieFile.load(path: resaved, now: Date())
        #expect(again.warnings.isEmpty)
        #expect(Set(again.cookies.map { "\($0.name)=\($0.value) \($0.domain) \($0.hostOnly) \($0.path) \($0.httpOnly)" })
                == Set(store.allCookies.map { "\($0.name)=\($0.value) \($0.domain) \($0.hostOnly) \($0.path) \($0.httpOnly)" }))
    }

    /// curl and wget both send exactly `expected` (in any order) from `jar`, except that wget 1.21 reads
    /// `#HttpOnly_` lines as comments (as it does in curl's own jars), so it never sends HttpOnly cookies.
    private func expectSent(_ server: EchoServer, jar: String, host: String, path: String, _ expected: Set<String>,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let viaCurl = try await server.curl(["-b", jar], host: host, path: path)
        #expect(Self.items(viaCurl) == expected, "curl", sourceLocation: sourceLocation)
        let httpOnly = try NetscapeCookieFile.load(path: jar, now: Date()).cookies.filter(\.httpOnly).map { "\($0.name)=\($0.value)" }
        let viaWget = try await server.wget(["--load-cookies", jar, "-O", "-"], host: host, path: path)
        #expect(Self.items(viaWget) == expected.subtracting(httpOnly), "wget", sourceLocation: sourceLocation)
    }

    private static func items(_ header: String) -> Set<String> {
        Set(header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "swget-cookie-tools-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// python3's http.server on 127.0.0.1: GET /set answers with `setCookies`; any other path answers with the
/// request's Cookie header as the body. Also serves as wget's HTTP proxy (absolute-form request targets).
final class EchoServer: @unchecked Sendable {
    static let setCookies = [
        "plain=v1; Path=/", "dom=v2; Domain=example.test; Path=/", "persist=v3; Max-Age=3600; Path=/; HttpOnly",
        "empty=; Path=/", "deep=v5; Path=/set/deeper", "exp=v7; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Path=/",
    ]

    static let script = """
        import http.server, sys, urllib.parse
        COOKIES = sys.argv[1].split("\\n")
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"
            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                body = b"" if path == "/set" else (self.headers.get("Cookie") or "").encode()
                self.send_response(200)
                if path == "/set":
                    for cookie in COOKIES:
                        self.send_header("Set-Cookie", cookie)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
        server.serve_forever()
        """

    let port: Int
    private let server: ForegroundServer
    private let home: String

    /// Started like the suite's other real servers (posix_spawn in a process group of its own,
    /// ready once the port accepts), never through Foundation's `Process`.
    init() async throws {
        guard let python = SwgetProcess.findExecutable("python3") else {
            throw RealServerError("python3 is not installed (scripts/install-deps --test installs it)")
        }
        var port = 0
        server = try await ForegroundServer.launch(name: "cookie-echo", binary: python) { _ in
            port = try Nginx.freePort()
            return .init(arguments: ["-c", Self.script, Self.setCookies.joined(separator: "\n"), String(port)], ports: [port])
        }
        self.port = port
        do {
            home = try makeTemporaryDirectory(prefix: "swget-cookie-home")
        } catch {
            server.stop()
            throw error
        }
    }

    /// Stops the server's process group and removes the temporary home.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: home)
    }

    /// curl, ignoring any .curlrc and proxy settings, with `host` resolved to 127.0.0.1; returns the body.
    @discardableResult
    func curl(_ arguments: [String], host: String, path: String) async throws -> String {
        try await run(["curl", "-q", "-s", "-S", "--noproxy", "*", "--max-time", "20", "--resolve", "\(host):\(port):127.0.0.1"]
                      + arguments + ["http://\(host):\(port)\(path)"])
    }

    /// wget, ignoring any .wgetrc, through this server as its proxy; returns the body.
    @discardableResult
    func wget(_ arguments: [String], host: String, path: String) async throws -> String {
        try await run(["wget", "-q", "-T", "20", "-t", "1", "-e", "use_proxy=on", "-e", "http_proxy=http://127.0.0.1:\(port)/"]
                      + arguments + ["http://\(host):\(port)\(path)"])
    }

    private func run(_ arguments: [String]) async throws -> String {
        // posix_spawn, not Foundation's Process (see OpenSSLPKI.openssl).
        let result = try await SwgetProcess.run(
            executable: "/usr/bin/env", arguments, in: home,
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": home],
            timeout: .seconds(120))
        guard result.status == 0 else {
            throw EchoServerError.failed(arguments.joined(separator: " "), result.status, result.stderr)
        }
        return result.stdoutText
    }
}

enum EchoServerError: Error, CustomStringConvertible {
    case failed(String, Int32, String)

    var description: String {
        switch self {
        case .failed(let command, let status, let stderr): "\(command) exited with \(status): \(stderr)"
        }
    }
}
