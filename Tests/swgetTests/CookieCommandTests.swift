import Foundation
import Testing
import SwgetTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Cookies end to end: on by default for the run, `--no-cookies`, `--load-cookies`/`--cookie`
/// (a file or curl's literal `a=b; c=d`), `--save-cookies`/`--cookie-jar` written atomically
/// with mode 0600 and read back by the real curl and wget, `--keep-session-cookies`, bad lines
/// skipped with a `FILE:LINE` warning, and `-H 'Cookie: …'` merged with the stored cookies.
@Suite("Cookies, end to end")
struct CookieCommandTests {
    /// /login sets a session cookie and a persistent one, /welcome needs the session, sets
    /// `stage` for /files and sends on to /files/report.txt, which needs both. 403 without them.
    static func loginChain(_ request: TestRequest) -> TestResponse {
        let cookie = request.header("Cookie") ?? ""
        switch request.path {
        case "/login":
            return TestResponse.redirect(302, to: "/welcome")
                .withHeader("Set-Cookie", "session=s3cr3t; Path=/; HttpOnly")
                .withHeader("Set-Cookie", "remember=me; Path=/; Max-Age=86400")
        case "/welcome":
            guard cookie.contains("session=s3cr3t") else { return .text("log in first", status: 403) }
            return TestResponse.redirect(302, to: "/files/report.txt").withHeader("Set-Cookie", "stage=2; Path=/files; Max-Age=600")
        case "/files/report.txt":
            guard cookie.contains("session=s3cr3t"), cookie.contains("stage=2") else { return .text("not yet", status: 403) }
            return .text("the report")
        default:
            return .text("seen")
        }
    }

    static func cookies(_ server: TestServer) -> [String?] { server.requests.map { $0.header("Cookie") } }

    static func run(_ arguments: [String], in dir: String) async throws -> SwgetResult {
        try await SwgetProcess.run(arguments, in: dir)
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") || $0.hasPrefix("#HttpOnly_") }
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    static func inode(_ path: String) -> ino_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : nil
    }

    @Test func aLoginChainWorksWithCookiesOnByDefault() async throws {
        let server = try await TestServer.start(handler: Self.loginChain)
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["-O", "report.txt", server.baseURL + "/login"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/report.txt") == Data("the report".utf8))
        #expect(Self.cookies(server) == [nil, "session=s3cr3t; remember=me", "stage=2; session=s3cr3t; remember=me"])
    }

    @Test func noCookiesNeitherSendsNorKeeps() async throws {
        let server = try await TestServer.start(handler: Self.loginChain)
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--no-cookies", "-O", "report.txt", server.baseURL + "/login"], in: dir)
        #expect(result.status == 8, "\(result.stderr)")
        #expect(Self.cookies(server) == [nil, nil])
        // With --no-cookies, a cookie file makes no sense.
        let usage = try await Self.run(["--no-cookies", "--save-cookies", "jar.txt", server.baseURL + "/login"], in: dir)
        #expect(usage.status == 2, "\(usage.stderr)")
    }

    /// `--save-cookies` (curl: `--cookie-jar`): replaced atomically (a new file renamed over the
    /// old one, no temporary left behind), mode 0600 whatever the umask or the old file's mode;
    /// session cookies only with `--keep-session-cookies`.
    @Test(arguments: [("--save-cookies", false), ("--cookie-jar", true)])
    func savedCookieFile(option: String, keepSession: Bool) async throws {
        let server = try await TestServer.start(handler: Self.loginChain)
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jar = dir + "/jar.txt"
        try "old contents\n".write(toFile: jar, atomically: false, encoding: .utf8)
        chmod(jar, 0o644)
        let before = Self.inode(jar)
        let arguments = [option, jar] + (keepSession ? ["--keep-session-cookies"] : []) + ["-O", "report.txt", server.baseURL + "/login"]
        let result = try await Self.run(arguments, in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.mode(jar) == 0o600)
        #expect(Self.inode(jar) != before, "the file is replaced by a rename, not rewritten in place")
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []) == ["jar.txt", "report.txt"])
        let lines = Self.lines(jar)
        #expect(!lines.contains("old contents"))
        let byName = Dictionary(lines.map { line in (line.split(separator: "\t").dropLast().last.map(String.init) ?? "", line) }) { a, _ in a }
        #expect(byName["remember"]?.hasPrefix("127.0.0.1\tFALSE\t/\tFALSE\t") == true, "\(lines)")
        #expect(byName["stage"]?.hasPrefix("127.0.0.1\tFALSE\t/files\tFALSE\t") == true, "\(lines)")
        if keepSession {
            #expect(byName["session"] == "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts3cr3t", "\(lines)")
        } else {
            #expect(byName["session"] == nil, "\(lines)")
        }
        #expect(lines.count == (keepSession ? 3 : 2), "\(lines)")
    }

    /// `--load-cookies` and curl's `--cookie FILE`; a bad line is skipped with a warning naming
    /// the file and line, the others are used.
    @Test(arguments: ["--load-cookies", "--cookie"])
    func loadedCookieFile(option: String) async throws {
        let server = try await TestServer.start { _ in .text("seen") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jar = dir + "/cookies.txt"
        try """
            # Netscape HTTP Cookie File
            127.0.0.1\tFALSE\t/\tFALSE\t0\tfirst\t1
            this line is not a cookie
            #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tsecond\t2
            127.0.0.1\tFALSE\t/elsewhere\tFALSE\t0\tpathed\t3
            example.org\tTRUE\t/\tFALSE\t0\tforeign\t4

            """.write(toFile: jar, atomically: true, encoding: .utf8)
        let result = try await Self.run([option, jar, "-O", "out", server.baseURL + "/x"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(jar):3: "), "\(result.stderr)")
        #expect(result.stderr.contains("line skipped"), "\(result.stderr)")
        #expect(Self.cookies(server) == ["first=1; second=2"])
    }

    /// curl's literal form: `--cookie 'a=b; c=d'` is sent to each command-line URL's host, and
    /// not to another host a redirect leads to. A file of that name wins over the literal.
    @Test func literalCookiesForEachURL() async throws {
        let other = try await TestServer.start { _ in .text("other") }
        defer { Task { try? await other.stop() } }
        let server = try await TestServer.start { request in
            request.path == "/away" ? .redirect(302, to: "http://localhost:\(other.port)/x") : .text("seen")
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--cookie", "a=b; c=d", "-O", "-", server.baseURL + "/x", server.baseURL + "/away"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.cookies(server) == ["a=b; c=d", "a=b; c=d"])
        #expect(Self.cookies(other) == [nil])
    }

    /// `-H 'Cookie: …'` goes first as given, the stored cookies follow unless it names them
    /// already; at another origin only the stored cookies for that host are sent.
    @Test func aUserCookieHeaderIsMergedWithStoredCookies() async throws {
        let server = try await TestServer.start(handler: Self.loginChain)
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["-H", "Cookie: mine=1; remember=mine", "-O", "report.txt", server.baseURL + "/login"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.cookies(server) == ["mine=1; remember=mine", "mine=1; remember=mine; session=s3cr3t",
                                         "mine=1; remember=mine; stage=2; session=s3cr3t"])
    }

    /// The CLI keeps the store's default: plain http to a loopback host counts as secure (as
    /// browsers and curl do), so a Secure cookie from http://127.0.0.1 is kept, sent back there
    /// and saved with its flag; a Secure cookie is never sent to a non-loopback http host.
    @Test func secureCookiesOverLoopbackHTTP() async throws {
        let server = try await TestServer.start { request in
            switch request.path {
            case "/set": TestResponse.redirect(302, to: "/read").withHeader("Set-Cookie", "sec=1; Secure; Path=/; Max-Age=600")
            default: .text("seen")
            }
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--save-cookies", "jar.txt", "-O", "out", server.baseURL + "/set"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.cookies(server) == [nil, "sec=1"])
        #expect(Self.lines(dir + "/jar.txt").first?.hasPrefix("127.0.0.1\tFALSE\t/\tTRUE\t") == true)
    }

    /// A cookie for a public suffix is refused; `Domain=localhost` from localhost (a public
    /// suffix itself) is kept as host-only, which the saved file shows (`FALSE` in column two).
    @Test func publicSuffixCookiesAreRefused() async throws {
        let server = try await TestServer.start { _ in
            TestResponse.text("set")
                .withHeader("Set-Cookie", "uk=1; Domain=co.uk; Max-Age=600")
                .withHeader("Set-Cookie", "suffix=1; Domain=localhost; Max-Age=600")
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--save-cookies", "jar.txt", "-O", "out", "http://localhost:\(server.port)/set"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Self.lines(dir + "/jar.txt")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("localhost\tFALSE\t/\tFALSE\t") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("\tsuffix\t1") == true, "\(lines)")
    }

    /// A `--save-cookies` file is loaded by the real curl (`curl -b FILE`) and wget
    /// (`wget --load-cookies FILE`), which send the cookies to the server.
    @Test func curlAndWgetLoadTheSavedFile() async throws {
        let curl = try #require(SwgetProcess.findExecutable("curl"), "curl is needed (scripts/install-deps --test)")
        let wget = try #require(SwgetProcess.findExecutable("wget"), "wget is needed (scripts/install-deps --test)")
        let server = try await TestServer.start { request in
            request.path == "/set"
                ? TestResponse.text("set").withHeader("Set-Cookie", "tool=yes; Path=/; Max-Age=600").withHeader("Set-Cookie", "sess=1; Path=/")
                : .text("seen")
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--save-cookies", "jar.txt", "--keep-session-cookies", "-O", "out", server.baseURL + "/set"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let jar = dir + "/jar.txt"

        let fromCurl = try await SwgetProcess.run(executable: curl, ["-sS", "--max-time", "20", "-o", "/dev/null", "-b", jar, server.baseURL + "/curl"], in: dir)
        #expect(fromCurl.status == 0, "\(fromCurl.stderr)")
        let fromWget = try await SwgetProcess.run(executable: wget, ["-q", "--timeout=20", "-O", "/dev/null", "--load-cookies", jar, server.baseURL + "/wget"], in: dir)
        #expect(fromWget.status == 0, "\(fromWget.stderr)")
        let seen = Dictionary(server.requests.map { ($0.path, $0.header("Cookie")) }) { a, _ in a }
        #expect(seen["/curl"].flatMap { $0 }.map { Set($0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }) } == ["tool=yes", "sess=1"])
        #expect(seen["/wget"].flatMap { $0 }.map { Set($0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }) } == ["tool=yes", "sess=1"])
    }

    /// A split download (`--split`) sends the cookies of the run with every segment.
    @Test func splitDownloadsCarryTheCookies() async throws {
        let source = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let server = try await TestServer.start { request in
            if request.path == "/login" { return TestResponse.redirect(302, to: "/big.bin").withHeader("Set-Cookie", "k=v") }
            guard request.header("Cookie") == "k=v" else { return .text("no cookie", status: 403) }
            return TestResponse.serving(source, to: request, etag: "\"e\"").trickled(bytesPerWrite: 100_000, every: .milliseconds(5))
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await Self.run(["--split", "4", "--min-split-size", "500K", "-O", "big.bin", server.baseURL + "/login"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/big.bin").map { [UInt8]($0) } == source)
        #expect(server.requests.filter { $0.header("Range") != nil }.count >= 2)
        #expect(server.requests.dropFirst().allSatisfy { $0.header("Cookie") == "k=v" },
                "\(server.requests.map { "\($0.path) \($0.header("Range") ?? "-") \($0.header("Cookie") ?? "-")" })")
    }
}
