import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// Issue 10 end to end: the built binary against hostile servers, hostile state and hostile
/// input. One test (or one small table) per item; every one of them failed before the fixes
/// (see the issue's closing note). This file: §1 credentials and §5 terminal output;
/// SecurityCommandTests+Files.swift: §2 state files and §3 `-c`;
/// SecurityCommandTests+Transport.swift: §4 TLS floor and §6 the wire.
@Suite("Security, end to end", .serialized)
struct SecurityCommandTests {
    static let source: [UInt8] = (0..<1_500_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
    static let credentialArguments = ["-H", "Authorization: Bearer X", "-H", "Cookie: c=1"]

    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }
    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// Where `/go/file.bin` on the first server leads.
    enum Hop: String, CaseIterable, Sendable { case otherOrigin, sameOrigin }

    /// Two servers, two origins: the first redirects `/go/file.bin` to `/file.bin` at `hop`'s origin;
    /// both serve `/file.bin` as `serve` says. `body` gets the start URL and the server that
    /// answers for the file.
    func withRedirect(_ hop: Hop, serve: @escaping @Sendable (TestRequest) -> TestResponse,
                      _ body: (_ start: String, _ target: TestServer) async throws -> Void) async throws {
        let second = try await TestServer.start(handler: serve)
        let secondBase = second.baseURL
        let first = try await TestServer.start { request in
            guard request.path == "/go/file.bin" else { return serve(request) }
            return .redirect(302, to: (hop == .otherOrigin ? secondBase : "") + "/file.bin")
        }
        do {
            try await body(first.baseURL + "/go/file.bin", hop == .otherOrigin ? second : first)
        } catch {
            try? await first.stop()
            try? await second.stop()
            throw error
        }
        try await first.stop()
        try await second.stop()
    }

    /// The requests for the file at the target origin carry the user's fields at the same
    /// origin and never at another one.
    func checkCredentials(_ hop: Hop, _ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) {
        let requests = server.requests.filter { $0.path == "/file.bin" }
        #expect(!requests.isEmpty, sourceLocation: sourceLocation)
        for request in requests {
            let sent = [request.header("Authorization"), request.header("Cookie")]
            let expected: [String?] = hop == .sameOrigin ? ["Bearer X", "c=1"] : [nil, nil]
            #expect(sent == expected, "\(hop), \(request.header("Range") ?? "whole file")", sourceLocation: sourceLocation)
        }
    }

    // MARK: §1 credentials

    @Test(arguments: Hop.allCases)
    func splitSegmentsNeverCarryCredentialsToAnotherOrigin(_ hop: Hop) async throws {
        let dir = try makeTemporaryDirectory()
        try await withRedirect(hop, serve: { request in
            TestResponse.serving(Self.source, to: request, etag: "\"s\"").trickled(bytesPerWrite: 30_000, every: .milliseconds(5))
        }) { start, target in
            let result = try await SwgetProcess.run(Self.credentialArguments + ["-q", "--split", "8", "--min-split-size", "64k", start], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(read(dir + "/file.bin") == Self.source)
            let ranged = target.requests.filter { $0.header("Range") != nil }
            #expect(ranged.count >= 2, "really split: \(target.requests.map { $0.header("Range") ?? "-" })")
            checkCredentials(hop, target)
        }
    }

    @Test(arguments: Hop.allCases, [false, true])
    func retriesNeverCarryCredentialsToAnotherOrigin(_ hop: Hop, toStandardOutput: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let count = Mutex(0)
        try await withRedirect(hop, serve: { request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"r\"")
            guard request.path == "/file.bin" else { return response }
            return count.withLock { $0 += 1; return $0 } == 1 ? response.closing(afterBodyBytes: 200_000) : response
        }) { start, target in
            let output = toStandardOutput ? ["-O", "-"] : []
            let result = try await SwgetProcess.run(Self.credentialArguments + output + ["-q", "-t", "3", "--waitretry", "0.05", start], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect((toStandardOutput ? result.stdout : read(dir + "/file.bin")) == Self.source)
            #expect(target.requests.last?.header("Range") == "bytes=200000-")
            checkCredentials(hop, target)
        }
    }

    /// The first run stalls mid-body and gives up (read timeout, one try), keeping the part and
    /// its state; the same command run again continues where the redirect led.
    @Test(arguments: Hop.allCases)
    func aRerunAfterAnInterruptionNeverCarriesCredentialsToAnotherOrigin(_ hop: Hop) async throws {
        let dir = try makeTemporaryDirectory()
        let count = Mutex(0)
        try await withRedirect(hop, serve: { request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"k\"")
            guard request.path == "/file.bin" else { return response }
            return count.withLock { $0 += 1; return $0 } == 1 ? response.stalling(afterBodyBytes: 400_000) : response
        }) { start, target in
            let command = Self.credentialArguments + ["-q", "-t", "1", "--read-timeout", "2", start]
            let interrupted = try await SwgetProcess.run(command, in: dir)
            #expect(interrupted.status == 4, "\(interrupted.stderr)")
            #expect(list(dir) == ["file.bin.part", "file.bin.swget"])
            let rerun = try await SwgetProcess.run(command, in: dir)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(read(dir + "/file.bin") == Self.source)
            #expect(target.requests.last?.header("Range") == "bytes=400000-")
            checkCredentials(hop, target)
        }
        #expect(list(dir) == ["file.bin"])
    }

    /// A password in the URL never reaches stderr (`-S`, retries, the final error) nor the
    /// state file.
    @Test func thePasswordOfAURLIsNeverShownNorStored() async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { request in
            TestResponse.serving(Self.source, to: request, etag: "\"p\"").closing(afterBodyBytes: 300_000)
        }
        let secret = "s3cr3tpw"
        let url = server.baseURL.replacingOccurrences(of: "://", with: "://user:\(secret)@") + "/p.bin"
        let failed = try await SwgetProcess.run(["-S", "-t", "2", "--waitretry", "0.05", url], in: dir)
        let invalid = try await SwgetProcess.run(["http://user:\(secret)@exa mple.org/"], in: dir)
        try await server.stop()
        #expect(failed.status == 4, "\(failed.stderr)")
        #expect(failed.stderr.contains("retrying"), "\(failed.stderr)")
        #expect(failed.stderr.contains("user:***@"), "\(failed.stderr)")
        #expect(invalid.status == 1)
        for stderr in [failed.stderr, invalid.stderr] {
            #expect(!stderr.contains(secret), "\(stderr)")
        }
        let state = String(decoding: try #require(read(dir + "/p.bin.swget")), as: UTF8.self)
        #expect(!state.contains(secret), "\(state)")
        #expect(state.contains("user:***@"), "\(state)")
    }

    // MARK: §5 terminal output

    /// Scalars that must never reach a terminal raw.
    static func rawControls(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x200B...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF, 0xFFFD: true  // U+FFFD: bytes that were not UTF-8
            default: false
            }
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test func serverHeadersAreShownEscaped() async throws {
        let dir = try makeTemporaryDirectory()
        // UTF-8 C1 controls, bidi and zero-width characters pass the HTTP parser (obs-text); C0
        // controls in a field value do not (the response is refused as malformed).
        let hostile = "a\u{9B}31mred\u{9D}0;title\u{9C}b\u{202E}txt.exe\u{2066}\u{200B}\u{FEFF}end"
        let server = try await TestServer.start { request in
            if request.path == "/raw" {
                return .rawBytes(Array("HTTP/1.1 200 O".utf8) + [0x1B] + Array("]0;pwned".utf8) + [0x07, 0x9B]
                                 + Array("K\r\nX-Raw: a".utf8) + [0x9B, 0x33, 0x31, 0x6D, 0x9D] + Array("b\r\nContent-Length: 2\r\n\r\nok".utf8))
            }
            return TestResponse.ok(Array("ok".utf8)).withHeader("X-Evil", hostile).withReason("O\u{1B}[31mK\u{9B}")
        }
        let result = try await SwgetProcess.run(["-S", "-O", "/dev/null", server.baseURL + "/utf8"], in: dir)
        // Bytes that are not UTF-8 would be repaired in `stderr`: keep swget's own bytes.
        let raw = try await SwgetProcess.run(
            executable: "/bin/sh", ["-c", "exec '\(SwgetProcess.binaryPath)' -S -O /dev/null '\(server.baseURL)/raw' 2>err.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("X-Evil: a\\x9B31mred\\x9D0;title\\x9Cb\\u{202E}txt.exe\\u{2066}\\u{200B}\\u{FEFF}end"),
                "\(result.stderr)")
        #expect(Self.rawControls(result.stderr) == [], "\(result.stderr)")
        #expect(raw.status == 0, "\(raw.stderr)")
        let bytes = read(dir + "/err.bin") ?? []
        let text = try #require(String(validating: bytes, as: UTF8.self), "stderr is not UTF-8: \(bytes)")
        #expect(text.contains("X-Raw: a"), "\(text)")
        #expect(Self.rawControls(text).allSatisfy { $0 == "U+FFFD" }, "\(text)")
    }

    @Test func invalidURLsAreEchoedEscaped() async throws {
        let dir = try makeTemporaryDirectory()
        let hostile = "http://exa\u{1B}]0;pwned\u{07}mple.org/\u{9B}2J\u{202E}x"
        try Data((hostile + "\n" + "\u{9D}0;t\u{1B}[31m\n").utf8).write(to: URL(fileURLWithPath: dir + "/list.txt"))
        let argv = try await SwgetProcess.run([hostile], in: dir)
        let file = try await SwgetProcess.run(["-i", "list.txt"], in: dir)
        #expect(argv.status == 1, "\(argv.stderr)")
        #expect(argv.stderr.contains("http://exa\\x1B]0;pwned\\x07mple.org/\\x9B2J\\u{202E}x"), "\(argv.stderr)")
        #expect(Self.rawControls(argv.stderr) == [], "\(argv.stderr)")
        #expect(file.status == 1, "\(file.stderr)")
        #expect(file.stderr.contains("invalid URL 'http://exa\\x1B]0;pwned\\x07mple.org/\\x9B2J\\u{202E}x'"), "\(file.stderr)")
        #expect(file.stderr.contains("invalid URL '\\x9D0;t\\x1B[31m'"), "\(file.stderr)")
        #expect(Self.rawControls(file.stderr) == [], "\(file.stderr)")
    }
}
