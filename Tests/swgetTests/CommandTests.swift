import Foundation
import Testing
import SwgetTestSupport

/// End to end: the built `swget` binary run as a subprocess in a clean environment.
@Suite("swget command, end to end")
struct CommandTests {
    func body(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }

    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test func savesUnderTheURLNameWithASummaryLine() async throws {
        let payload = body(200_000)
        let server = try await TestServer.start { _ in .ok(payload) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run([server.baseURL + "/files/report.pdf"], in: dir)
        #expect(result.status == 0)
        #expect(list(dir) == ["report.pdf"])
        #expect(read(dir + "/report.pdf") == payload)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("'report.pdf' saved"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        try await server.stop()
    }

    @Test func quietPrintsNothing() async throws {
        let server = try await TestServer.start { _ in .text("x") }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-q", server.baseURL + "/a.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty && result.stdout.isEmpty)
        #expect(list(dir) == ["a.txt"])
    }

    @Test func standardOutputGetsTheBodyAndNothingElse() async throws {
        let payload = body(1_500_000)
        let server = try await TestServer.start { _ in .ok(payload).chunked(10_000) }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-O", "-", server.baseURL + "/stream"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stdout.count == payload.count)
        #expect(result.stdout == payload)
        #expect(list(dir).isEmpty)
    }

    @Test func outputDocumentReplacesTheFile() async throws {
        let server = try await TestServer.start { _ in .text("fresh") }
        let dir = try makeTemporaryDirectory()
        try Data("stale and longer".utf8).write(to: URL(fileURLWithPath: dir + "/out.txt"))
        let result = try await SwgetProcess.run(["-O", "out.txt", server.baseURL + "/x"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(read(dir + "/out.txt") == Array("fresh".utf8))
        #expect(list(dir) == ["out.txt"])
    }

    @Test func severalURLsIntoADirectoryPrefixNeverOverwriting() async throws {
        let server = try await TestServer.start { request in .text("content of \(request.path)") }
        let dir = try makeTemporaryDirectory()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/a.txt"))
        let result = try await SwgetProcess.run(["-q", "-P", "downloads/sub", server.baseURL + "/a.txt",
                                                 server.baseURL + "/b.txt", server.baseURL + "/a.txt"], in: dir)
        let result2 = try await SwgetProcess.run(["-q", server.baseURL + "/a.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0 && result2.status == 0)
        #expect(list(dir + "/downloads/sub") == ["a-1.txt", "a.txt", "b.txt"])
        #expect(read(dir + "/a.txt") == Array("mine".utf8))
        #expect(read(dir + "/a-1.txt") == Array("content of /a.txt".utf8))
    }

    @Test func noClobberSkipsExistingFiles() async throws {
        let server = try await TestServer.start { _ in .text("new") }
        let dir = try makeTemporaryDirectory()
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/f.txt"))
        let result = try await SwgetProcess.run(["-nc", server.baseURL + "/f.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stderr.contains("already there"))
        #expect(read(dir + "/f.txt") == Array("old".utf8))
        #expect(list(dir) == ["f.txt"])
    }

    @Test func hostileContentDispositionStaysInTheDirectory() async throws {
        let server = try await TestServer.start { _ in
            .text("pwned?").withHeader("Content-Disposition", "attachment; filename=\"../../.bashrc\"")
        }
        let dir = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let result = try await SwgetProcess.run(["-q", "-P", "in", server.baseURL + "/x"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(list(dir) == ["in"])
        #expect(list(dir + "/in") == ["bashrc.txt"])
    }

    @Test func headersAndUserAgentAreSentAndServerResponsePrinted() async throws {
        let server = try await TestServer.start { request in
            request.path == "/start" ? .redirect(302, to: "/end") : .text("ok")
        }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-S", "-U", "tester/1.0", "--header", "X-Token: abc",
                                                 "-O", "/dev/null", server.baseURL + "/start"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stderr.contains("HTTP/1.1 302"))
        #expect(result.stderr.contains("HTTP/1.1 200"))
        let last = try #require(server.requests.last)
        #expect(last.path == "/end")
        #expect(last.header("User-Agent") == "tester/1.0")
        #expect(last.header("X-Token") == "abc")
    }

    @Test func versionAndHelp() async throws {
        let dir = try makeTemporaryDirectory()
        let version = try await SwgetProcess.run(["--version"], in: dir)
        #expect(version.status == 0)
        #expect(version.stdoutText.hasPrefix("swget "))
        let help = try await SwgetProcess.run(["--help"], in: dir)
        #expect(help.status == 0)
        for option in ["--output-document", "--directory-prefix", "--no-clobber", "--ca-certificate", "--max-redirect", "Exit status"] {
            #expect(help.stdoutText.contains(option), "\(option)")
        }
    }

    @Test func tlsWithTheCAFileAndWithVerificationOff() async throws {
        let pki = try TestCertificates.make()
        let server = try await TestServer.start(tls: try pki.serverIdentity()) { _ in .text("secure") }
        let dir = try makeTemporaryDirectory()
        let ca = try pki.writeCA(to: dir)
        let trusted = try await SwgetProcess.run(["-q", "--ca-certificate", ca, "-O", "-", server.baseURL + "/x"], in: dir)
        let refused = try await SwgetProcess.run(["-q", "-O", "-", server.baseURL + "/x"], in: dir)
        let insecure = try await SwgetProcess.run(["-q", "--no-check-certificate", "-O", "-", server.baseURL + "/x"], in: dir)
        let curlStyle = try await SwgetProcess.run(["-q", "--cacert", ca, "-O", "-", server.baseURL + "/x"], in: dir)
        try await server.stop()
        #expect(trusted.status == 0 && trusted.stdoutText == "secure")
        #expect(curlStyle.status == 0 && curlStyle.stdoutText == "secure")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("certificate"))
        #expect(insecure.status == 0 && insecure.stdoutText == "secure")
    }

    /// One row per exit code the command can produce today (auth, 6, comes with credentials).
    @Test func exitCodes() async throws {
        let server = try await TestServer.start { request in
            switch request.path {
            case "/missing": .status(404, body: Array("nope".utf8))
            case "/broken": .status(503)
            case "/loop": .redirect(302, to: "/loop2")
            case "/loop2": .redirect(302, to: "/loop")
            case "/short": .ok(Array(repeating: 1, count: 100)).closing(afterBodyBytes: 10)
            default: .text("fine")
            }
        }
        let dir = try makeTemporaryDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        let base = server.baseURL
        let cases: [([String], Int32, String)] = [
            ([base + "/ok"], 0, ""),
            (["gopher://example.org/x"], 1, "unsupported scheme"),
            (["http://exa mple.org/"], 1, "invalid URL"),
            ([], 2, "missing URL"),
            (["--no-such-option", base + "/ok"], 2, "no-such-option"),
            (["-P", dir + "/file/sub", base + "/ok"], 3, "file"),
            (["http://127.0.0.1:9/x"], 4, "Connection refused"),
            ([base + "/short"], 4, "closed"),
            ([base + "/loop"], 7, "redirect loop"),
            (["--max-redirect", "0", base + "/loop"], 7, "too many redirects"),
            ([base + "/missing"], 8, "404"),
            ([base + "/broken"], 8, "503"),
            // Several URLs: the most severe wins (4 beats 8), and every failure has its line.
            ([base + "/missing", "http://127.0.0.1:9/x", base + "/ok"], 4, "404"),
        ]
        for (arguments, expected, message) in cases {
            // -t 1: the exit code of a single attempt (retries have their own tests).
            let result = try await SwgetProcess.run(["-q", "-t", "1"] + arguments, in: dir)
            #expect(result.status == expected, "\(arguments)")
            if !message.isEmpty { #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)") }
            if expected != 0 && expected != 2 {
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.allSatisfy { $0.hasPrefix("swget: ") }, "\(result.stderr)")
            }
        }
        try await server.stop()
    }

    @Test func contentOnErrorSavesTheBodyButStillFails() async throws {
        let server = try await TestServer.start { _ in .status(404, body: Array("missing page".utf8)) }
        let dir = try makeTemporaryDirectory()
        let plain = try await SwgetProcess.run(["-q", server.baseURL + "/a.html"], in: dir)
        let saved = try await SwgetProcess.run(["-q", "--content-on-error", server.baseURL + "/a.html"], in: dir)
        try await server.stop()
        #expect(plain.status == 8 && saved.status == 8)
        #expect(list(dir) == ["a.html"])
        #expect(read(dir + "/a.html") == Array("missing page".utf8))
    }

    @Test func errorLineNamesTheURLAndKeepsThePartFile() async throws {
        let server = try await TestServer.start { _ in .ok(Array(repeating: 9, count: 50_000)).closing(afterBodyBytes: 20_000) }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-t", "1", server.baseURL + "/big.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 4)
        #expect(result.stderr.contains("swget: \(server.baseURL)/big.bin: "))
        #expect(result.stderr.contains("big.bin.part"))
        #expect(list(dir) == ["big.bin.part", "big.bin.swget"])
        #expect(read(dir + "/big.bin.part")?.count == 20_000)
    }
}
