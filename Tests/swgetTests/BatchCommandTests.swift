import Foundation
import Testing
import SwgetTestSupport

/// Batches: `-i` lists, `--parallel`, and one failure never stopping the others.
@Suite("swget batches, end to end")
struct BatchCommandTests {
    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }
    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    static func server() async throws -> TestServer {
        try await TestServer.start { request in
            if request.path == "/missing" { return .status(404, body: []) }
            // Slow enough that parallel transfers overlap.
            return .text("body of \(request.path)\n").trickled(bytesPerWrite: 4, every: .milliseconds(10))
        }
    }

    @Test func inputFileSkipsCommentsReportsBadLinesAndRunsTheRest() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let listing = """
        # nightly files
        \(server.baseURL)/a.txt

          \(server.baseURL)/b.txt\("  ")
        not a url with spaces
        \(server.baseURL)/missing
        """
        try Data(listing.utf8).write(to: URL(fileURLWithPath: dir + "/urls.txt"))
        let result = try await SwgetProcess.run(["-i", "urls.txt", "-P", "out", server.baseURL + "/c.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 8, "the most severe code wins: 8 (404) beats 1 (bad line)")
        #expect(result.stderr.contains("swget: urls.txt:5: invalid URL 'not a url with spaces'; skipped"), "\(result.stderr)")
        #expect(result.stderr.contains("server answered 404"))
        #expect(list(dir + "/out") == ["a.txt", "b.txt", "c.txt"])
        #expect(read(dir + "/out/b.txt") == Array("body of /b.txt\n".utf8))
        #expect(result.stderr.contains("Downloaded 3 of 4 files (1 failed)"), "\(result.stderr)")
    }

    @Test func standardInputList() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let script = "printf '%s\\n%s\\n' '\(server.baseURL)/x.txt' '\(server.baseURL)/y.txt' | '\(SwgetProcess.binaryPath)' -q -i -"
        let result = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(list(dir) == ["x.txt", "y.txt"])
    }

    @Test func parallelOverlapsTransfersAndOneRunsThemInTurn() async throws {
        let urls = (1...6).map { "/f\($0).txt" }
        for (parallel, expectOverlap) in [(1, false), (4, true)] {
            let server = try await Self.server()
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-q", "-j", "\(parallel)"] + urls.map { server.baseURL + $0 }, in: dir)
            try await server.stop()
            #expect(result.status == 0)
            #expect(list(dir).count == 6)
            // Keep-alive: one at a time reuses one connection; several at once need several.
            if expectOverlap {
                #expect(server.connectionCount > 1)
                #expect(server.connectionCount <= 4)
            } else {
                #expect(server.connectionCount == 1)
                #expect(server.requests.map(\.path) == urls, "serial keeps the command line's order")
            }
        }
    }

    @Test func maxConnectionsPerHostBoundsParallelism() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-q", "-j", "8", "--max-connections-per-host", "2"]
            + (1...8).map { server.baseURL + "/g\($0).txt" }, in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(list(dir).count == 8)
        #expect(server.connectionCount <= 2)
    }

    @Test func usageErrorsForBadCounts() async throws {
        for args in [["-j", "0"], ["--max-connections-per-host", "0"]] {
            let result = try await SwgetProcess.run(args + ["http://127.0.0.1:1/"], in: try makeTemporaryDirectory())
            #expect(result.status == 2)
        }
        let missing = try await SwgetProcess.run(["-i", "no-such-file"], in: try makeTemporaryDirectory())
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no-such-file: cannot read the input file"))
    }
}
