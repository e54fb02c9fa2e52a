import Foundation
import Synchronization
import Testing
import SwgetTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Authentication end to end: every credential flag, URL userinfo, `.netrc` (the default
/// `~/.netrc` through HOME, `--netrc-file`, `--no-netrc`), `--ask-password` on a real terminal,
/// exit 6 and its hint, and Apache httpd (mod_auth_basic, mod_auth_digest) and nginx
/// (auth_basic) checking the credentials themselves.
@Suite("Authentication, end to end")
struct AuthenticationCommandTests {
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Serves "ok PATH" to Basic `user`/`password`, a 401 challenge to anything else.
    static func protected(user: String = "alice", password: String = "secret",
                          body: @escaping @Sendable (TestRequest) -> TestResponse = { .text("ok \($0.path)") })
        -> @Sendable (TestRequest) -> TestResponse {
        let expected = basic(user, password)
        return { request in
            guard request.header("Authorization") == expected else {
                return TestResponse.text("who are you?", status: 401).withHeader("WWW-Authenticate", "Basic realm=\"files\"")
            }
            return body(request)
        }
    }

    static func authorizations(_ server: TestServer) -> [String?] { server.requests.map { $0.header("Authorization") } }

    /// Runs swget in a fresh directory with `home` as HOME (a fresh one when nil).
    /// Runs swget one download at a time (`-j 1`, wget's order), so that which request of a
    /// run carries credentials is deterministic.
    static func swget(_ arguments: [String], home: String? = nil) async throws -> (SwgetResult, String) {
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-j", "1"] + arguments, in: dir, environment: home.map { ["HOME": $0] } ?? [:])
        return (result, dir)
    }

    static func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
    }

    // MARK: Every way to give credentials

    struct FlagCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// `%@` is "127.0.0.1:PORT".
        var url = "http://%@/f.txt"
        var user = "alice"
        var password = "secret"
        var testDescription: String { (arguments + [url]).joined(separator: " ") }
    }

    static let flagCases: [FlagCase] = [
        FlagCase(arguments: ["--user", "alice", "--password", "secret"]),
        FlagCase(arguments: ["--user", "alice:secret"]),
        FlagCase(arguments: ["-u", "alice:sec:ret"], password: "sec:ret"),
        FlagCase(arguments: ["--http-user", "alice", "--http-password", "secret"]),
        FlagCase(arguments: ["--http-user=alice", "--password=secret"]),
        FlagCase(arguments: ["--user", "mallory", "--http-user", "alice", "--http-password", "secret"]),
        FlagCase(arguments: [], url: "http://alice:secret@%@/f.txt"),
        FlagCase(arguments: [], url: "http://al%40ice:p%3As%20s%2F@%@/f.txt", user: "al@ice", password: "p:s s/"),
        FlagCase(arguments: [], url: "http://b%C3%B6b:p%C3%A4ss@%@/f.txt", user: "böb", password: "päss"),
        FlagCase(arguments: ["--user", "alice", "--password", "secret"], url: "http://mallory:nope@%@/f.txt"),
    ]

    @Test(arguments: flagCases)
    func everyCredentialFlagAnswersTheChallenge(_ c: FlagCase) async throws {
        let server = try await TestServer.start(handler: Self.protected(user: c.user, password: c.password))
        defer { Task { try? await server.stop() } }
        let url = c.url.replacingOccurrences(of: "%@", with: "127.0.0.1:\(server.port)")
        let (result, dir) = try await Self.swget(c.arguments + [url])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/f.txt") == Data("ok /f.txt".utf8))
        #expect(Self.authorizations(server) == [nil, Self.basic(c.user, c.password)])
        #expect(!result.stderr.contains(c.password), "the password is never printed")
    }

    // MARK: Failures: exit 6, bounded

    @Test func wrongPasswordExitsSixAfterExactlyOneRetry() async throws {
        let server = try await TestServer.start(handler: Self.protected())
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget(["--user", "alice", "--password", "wrong", server.baseURL + "/f.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("credentials refused"), "\(result.stderr)")
        #expect(!result.stderr.contains("use --user"), "credentials were given: no hint")
        #expect(Self.authorizations(server) == [nil, Self.basic("alice", "wrong")])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir)) == [])
    }

    @Test func aServerThatChallengesForeverExitsSix() async throws {
        let counter = Mutex(0)
        let server = try await TestServer.start { _ in
            let n = counter.withLock { $0 += 1; return $0 }
            return TestResponse.text("again", status: 401).withHeader("WWW-Authenticate", "Basic realm=\"realm \(n)\"")
        }
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget(["-u", "alice:secret", server.baseURL + "/f.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("too many authentication challenges"), "\(result.stderr)")
        #expect(server.requests.count == 9)
    }

    @Test(arguments: [true, false])
    func aChallengeWithoutCredentialsExitsSixWithAHint(withChallenge: Bool) async throws {
        let server = try await TestServer.start { _ in
            let response = TestResponse.text("no", status: 401)
            return withChallenge ? response.withHeader("WWW-Authenticate", "Basic realm=\"files\"") : response
        }
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget([server.baseURL + "/f.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("(use --user or ~/.netrc)"), "\(result.stderr)")
        #expect(server.requests.count == 1)
    }

    /// `--spider` checks a protected URL: a 401 is an authentication failure there too.
    @Test func spiderOnAProtectedURLExitsSix() async throws {
        let server = try await TestServer.start(handler: Self.protected())
        defer { Task { try? await server.stop() } }
        let (denied, dir) = try await Self.swget(["--spider", server.baseURL + "/f.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(denied.status == 6, "\(denied.stderr)")
        let (allowed, other) = try await Self.swget(["--spider", "-u", "alice:secret", server.baseURL + "/f.txt"])
        defer { try? FileManager.default.removeItem(atPath: other) }
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    // MARK: Redirects and origins

    @Test func aChallengeOnARedirectTargetAtTheSameOrigin() async throws {
        let protected = Self.protected()
        let server = try await TestServer.start { request in
            request.path == "/start" ? .redirect(302, to: "/files/f.txt") : protected(request)
        }
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget(["-u", "alice:secret", server.baseURL + "/start"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/start", "/files/f.txt", "/files/f.txt"])
        #expect(Self.authorizations(server) == [nil, nil, Self.basic("alice", "secret")])
    }

    /// `--user` is for each URL's own origin: after a redirect from 127.0.0.1 to localhost it is
    /// not sent, and the run fails there — unless `~/.netrc` has an entry for localhost.
    @Test(arguments: [false, true])
    func credentialsDoNotFollowARedirectToAnotherOrigin(netrcForTheOtherHost: Bool) async throws {
        let other = try await TestServer.start(handler: Self.protected(user: "bob", password: "b0b"))
        defer { Task { try? await other.stop() } }
        let first = try await TestServer.start(handler: Self.protected(body: { _ in .redirect(302, to: "http://localhost:\(other.port)/f.txt") }))
        defer { Task { try? await first.stop() } }
        let home = try makeTemporaryDirectory(prefix: "swget-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        if netrcForTheOtherHost { try Self.write("machine localhost login bob password b0b\n", to: home + "/.netrc") }
        let (result, dir) = try await Self.swget(["--user", "alice", "--password", "secret", first.baseURL + "/start"], home: home)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(Self.authorizations(first) == [nil, Self.basic("alice", "secret")])
        #expect(!Self.authorizations(other).contains(Self.basic("alice", "secret")))
        if netrcForTheOtherHost {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.authorizations(other) == [nil, Self.basic("bob", "b0b")])
        } else {
            #expect(result.status == 6, "\(result.stderr)")
            #expect(Self.authorizations(other) == [nil])
            #expect(result.stderr.contains("localhost:\(other.port)"), "the failure names the other origin: \(result.stderr)")
        }
    }

    // MARK: Before the challenge

    /// After the first file, the other files of the run to the same protection space carry the
    /// credential from their first request.
    @Test func laterRequestsInTheRunSendTheCredentialAtOnce() async throws {
        let server = try await TestServer.start(handler: Self.protected())
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget(["-u", "alice:secret", server.baseURL + "/a.txt", server.baseURL + "/b.txt", server.baseURL + "/c.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/a.txt", "/a.txt", "/b.txt", "/c.txt"])
        #expect(Self.authorizations(server).compactMap { $0 }.count == 3)
    }

    @Test func authNoChallengeSendsBasicWithTheFirstRequest() async throws {
        let server = try await TestServer.start(handler: Self.protected())
        defer { Task { try? await server.stop() } }
        let (result, dir) = try await Self.swget(["--auth-no-challenge", "-u", "alice:secret", server.baseURL + "/a.txt"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.authorizations(server) == [Self.basic("alice", "secret")])
    }

    // MARK: .netrc

    struct NetrcCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// The file's text; `%h` stands for 127.0.0.1.
        let text: String
        var mode: mode_t = 0o600
        /// Where it is: HOME/.netrc, or given with --netrc-file.
        var inHome = true
        var arguments: [String] = []
        /// `%@` is "127.0.0.1:PORT".
        var url = "http://%@/f.txt"
        var expectedUser = "alice"
        var expectedPassword = "secret"
        var status: Int32 = 0
        var stderr: String?
        var testDescription: String { name }
    }

    static let netrcCases: [NetrcCase] = [
        NetrcCase(name: "~/.netrc by default", text: "machine %h login alice password secret\n"),
        NetrcCase(name: "--netrc-file", text: "machine %h\n  login alice\n  password secret\n", inHome: false),
        NetrcCase(name: "a default entry", text: "machine example.org login x password y\ndefault login alice password secret\n"),
        NetrcCase(name: "quoted tokens", text: "machine \"%h\" login \"alice\" password \"s\\\"e c\\\\ret\"\n",
                  expectedPassword: "s\"e c\\ret"),
        NetrcCase(name: "macdef skipped", text: "macdef init\ncd /pub\nmachine nope\n\nmachine %h login alice password secret\n"),
        NetrcCase(name: "the URL's login picks the entry", text: "machine %h login bob password b0b\nmachine %h login alice password secret\n",
                  url: "http://alice@%@/f.txt"),
        NetrcCase(name: "--user wins over .netrc", text: "machine %h login alice password netrc-pass\n",
                  arguments: ["--user", "alice", "--password", "secret"]),
        NetrcCase(name: "readable by others: a warning", text: "machine %h login alice password secret\n", mode: 0o644,
                  stderr: "is readable by others"),
        NetrcCase(name: "--no-netrc", text: "machine %h login alice password secret\n", arguments: ["--no-netrc"],
                  status: 6, stderr: "(use --user or ~/.netrc)"),
        NetrcCase(name: "malformed", text: "machine %h login alice\npassword \"unterminated\n", status: 2, stderr: ".netrc:2:"),
        NetrcCase(name: "malformed via --netrc-file", text: "login alice password secret\n", inHome: false, status: 2, stderr: "netrc-file:1:"),
        NetrcCase(name: "missing --netrc-file", text: "", inHome: false, arguments: ["--netrc-file", "/nonexistent/netrc"], status: 2,
                  stderr: "cannot read /nonexistent/netrc"),
    ]

    @Test(arguments: netrcCases)
    func netrc(_ c: NetrcCase) async throws {
        let server = try await TestServer.start(handler: Self.protected(user: c.expectedUser, password: c.expectedPassword))
        defer { Task { try? await server.stop() } }
        let home = try makeTemporaryDirectory(prefix: "swget-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let text = c.text.replacingOccurrences(of: "%h", with: "127.0.0.1")
        var arguments = c.arguments
        if c.inHome {
            try Self.write(text, to: home + "/.netrc", mode: c.mode)
        } else if !c.arguments.contains("--netrc-file") {
            let path = home + "/netrc-file"
            try Self.write(text, to: path, mode: c.mode)
            arguments += ["--netrc-file", path]
        }
        let url = c.url.replacingOccurrences(of: "%@", with: "127.0.0.1:\(server.port)")
        let (result, dir) = try await Self.swget(arguments + [url], home: home)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == c.status, "\(result.stderr)")
        if let stderr = c.stderr { #expect(result.stderr.contains(stderr), "\(result.stderr)") }
        if c.status == 0 {
            #expect(Self.authorizations(server) == [nil, Self.basic(c.expectedUser, c.expectedPassword)])
            if c.stderr == nil { #expect(!result.stderr.contains("warning"), "\(result.stderr)") }
        }
        if c.status == 2 { #expect(server.requests.isEmpty, "a bad .netrc stops the run before any request") }
    }

    // MARK: --ask-password

    @Test func askPasswordPromptsOnTheTerminalWithoutEcho() async throws {
        let password = "typed s3cret"
        let server = try await TestServer.start(handler: Self.protected(password: password))
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let terminal = try await PromptTerminal.start(arguments: ["--user", "alice", "--ask-password", server.baseURL + "/f.txt"], in: dir)
        do {
            // A terminal capture drops the prompt's trailing blank.
            let prompt = try await terminal.waitFor("Password for user 'alice':")
            #expect(server.requests.isEmpty, "the password is asked before any request")
            try await terminal.type(password)
            let screen = try await terminal.waitFor("EXIT=")
            #expect(screen.contains("EXIT=0"), "\(screen)")
            #expect(!screen.contains(password), "the password is not echoed:\n\(screen)")
            #expect(prompt.contains("Password for user 'alice':"))
            #expect(Self.authorizations(server) == [nil, Self.basic("alice", password)])
            #expect(FileManager.default.contents(atPath: dir + "/f.txt") == Data("ok /f.txt".utf8))
        } catch {
            await terminal.close()
            throw error
        }
        await terminal.close()
    }

    struct AskCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// Without a terminal (a new session: no controlling terminal, standard input /dev/null),
    /// `--ask-password` is a usage error, as are its impossible combinations.
    @Test(arguments: [
        AskCase(arguments: ["--user", "alice", "--ask-password"], message: "--ask-password needs a terminal"),
        AskCase(arguments: ["--ask-password"], message: "--ask-password needs --user"),
        AskCase(arguments: ["--user", "alice", "--password", "x", "--ask-password"], message: "cannot be combined"),
        AskCase(arguments: ["--netrc-file", "/tmp/x", "--no-netrc"], message: "cannot be combined"),
    ])
    func askPasswordWithoutATerminalIsAUsageError(_ c: AskCase) async throws {
        let setsid = try #require(SwgetProcess.findExecutable("setsid"), "setsid (util-linux) is needed")
        let server = try await TestServer.start(handler: Self.protected())
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(executable: setsid, ["--wait", SwgetProcess.binaryPath] + c.arguments + [server.baseURL + "/f.txt"],
                                                in: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(c.message), "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    // MARK: Real servers

    static func root() throws -> String {
        let root = try makeTemporaryDirectory(prefix: "swget-auth-root")
        try "alpha\n".write(toFile: root + "/a.txt", atomically: true, encoding: .utf8)
        try "beta\n".write(toFile: root + "/b.txt", atomically: true, encoding: .utf8)
        return root
    }

    /// The access log's lines as "METHOD URI STATUS USER" (user "-" or empty when none).
    static func requests(_ log: String) -> [String] {
        log.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            let user = line.firstMatch(of: /user="([^"]*)"/).map { String($0.1) } ?? "?"
            return parts.prefix(3).joined(separator: " ") + " " + (user.isEmpty ? "-" : user)
        }
    }

    struct ApacheCase: Sendable, CustomTestStringConvertible {
        let location: String
        let arguments: [String]
        let status: Int32
        let log: [String]
        var testDescription: String { "\(location) \(arguments.joined(separator: " "))" }
    }

    @Test(arguments: [
        ApacheCase(location: "basic", arguments: ["-u", "alice:secret"], status: 0,
                   log: ["GET /basic/a.txt 401 -", "GET /basic/a.txt 200 alice", "GET /basic/b.txt 200 alice"]),
        ApacheCase(location: "digest", arguments: ["--http-user", "alice", "--http-password", "secret"], status: 0,
                   log: ["GET /digest/a.txt 401 -", "GET /digest/a.txt 200 alice", "GET /digest/b.txt 200 alice"]),
        ApacheCase(location: "basic", arguments: ["-u", "alice:wrong"], status: 6,
                   log: ["GET /basic/a.txt 401 -", "GET /basic/a.txt 401 alice", "GET /basic/b.txt 401 -", "GET /basic/b.txt 401 alice"]),
        ApacheCase(location: "digest", arguments: ["-u", "bob:secret"], status: 6,
                   log: ["GET /digest/a.txt 401 -", "GET /digest/a.txt 401 bob", "GET /digest/b.txt 401 -", "GET /digest/b.txt 401 bob"]),
        ApacheCase(location: "redirect/basic", arguments: ["-u", "alice:secret"], status: 0,
                   log: ["GET /redirect/basic/a.txt 302 -", "GET /basic/a.txt 401 -", "GET /basic/a.txt 200 alice",
                         "GET /redirect/basic/b.txt 302 -", "GET /basic/b.txt 200 alice"]),
    ])
    func apacheChecksBasicAndDigest(_ c: ApacheCase) async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let apache = try await Apache.start(root: root, users: ["alice": "secret"])
        defer { apache.stop() }
        let urls = ["a.txt", "b.txt"].map { "\(apache.httpURL)/\(c.location)/\($0)" }
        let (result, dir) = try await Self.swget(c.arguments + urls)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == c.status, "\(result.stderr)\n\(apache.errorLog())")
        // Apache writes a line when a request completes; the run is over, so all are there.
        #expect(Self.requests(apache.accessLog()) == c.log, "\(apache.accessLog())")
        if c.status == 0 {
            #expect(FileManager.default.contents(atPath: dir + "/a.txt") == Data("alpha\n".utf8))
            #expect(FileManager.default.contents(atPath: dir + "/b.txt") == Data("beta\n".utf8))
        }
    }

    @Test(arguments: [("secret", Int32(0)), ("wrong", 6)])
    func nginxChecksBasic(password: String, status: Int32) async throws {
        let root = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nginx = try await NginxAuth.start(root: root, users: ["alice": "secret"])
        defer { nginx.stop() }
        let home = try makeTemporaryDirectory(prefix: "swget-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        try Self.write("machine 127.0.0.1 login alice password \(password)\n", to: home + "/.netrc")
        let urls = ["a.txt", "b.txt"].map { "\(nginx.httpURL)/private/\($0)" }
        let (result, dir) = try await Self.swget(urls, home: home)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(result.status == status, "\(result.stderr)\n\(nginx.errorLog())")
        let expected = status == 0
            ? ["GET /private/a.txt 401 -", "GET /private/a.txt 200 alice", "GET /private/b.txt 200 alice"]
            : ["GET /private/a.txt 401 -", "GET /private/a.txt 401 alice", "GET /private/b.txt 401 -", "GET /private/b.txt 401 alice"]
        #expect(Self.requests(nginx.accessLog()) == expected, "\(nginx.accessLog())")
    }
}

/// swget on a real terminal: a private tmux server (its own socket, no configuration file) whose
/// one pane runs swget and then prints `EXIT=<status>`.
struct PromptTerminal {
    let tmux: String
    let directory: String
    var socket: String { directory + "/socket" }

    static func start(arguments: [String], in directory: String) async throws -> PromptTerminal {
        let tmux = try #require(SwgetProcess.findExecutable("tmux"), "tmux is needed (scripts/install-deps --test)")
        let terminal = PromptTerminal(tmux: tmux, directory: try makeTemporaryDirectory(prefix: "swget-tmux"))
        let quoted = ([SwgetProcess.binaryPath] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = "cd '\(directory)' || exit 1; timeout --foreground 300 \(quoted.joined(separator: " ")); echo EXIT=$?; exec sleep 300"
        do {
            try await terminal.run(["new-session", "-d", "-x", "120", "-y", "20", "-s", "t", command])
        } catch {
            await terminal.close()
            throw error
        }
        return terminal
    }

    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        let result = try await SwgetProcess.run(executable: tmux, ["-S", socket, "-f", "/dev/null"] + arguments, in: directory,
                                                environment: ["HOME": directory], timeout: .seconds(20))
        guard result.status == 0 else { throw RealServerError("tmux \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdoutText
    }

    /// The pane's text once it contains `text` (captured every 100 ms, 30 s at most).
    func waitFor(_ text: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let screen = try await run(["capture-pane", "-p", "-t", "t"])
            if screen.contains(text) { return screen }
            if ContinuousClock.now >= deadline { throw RealServerError("never saw \(text.debugDescription); the pane:\n\(screen)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Types `text` and Enter.
    func type(_ text: String) async throws {
        try await run(["send-keys", "-t", "t", "-l", text])
        try await run(["send-keys", "-t", "t", "Enter"])
    }

    func close() async {
        _ = try? await run(["kill-server"])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
