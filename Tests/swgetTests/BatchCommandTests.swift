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

/// Ctrl-C during several parallel transfers stops all of them and keeps every part with its
/// state; the same command then finishes them.
@Suite("swget batches interrupted")
struct BatchInterruptTests {
    @Test func interruptStopsEveryTransferAndTheRerunFinishesThem() async throws {
        let body = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        // The first request for each file stalls after 300 kB, so no transfer can finish before
        // the interrupt whatever the machine's load; the ranged requests of the rerun are served.
        let server = try await TestServer.start { request in
            let response = TestResponse.serving(body, to: request, etag: "\"p\"")
            return request.header("Range") == nil ? response.stalling(afterBodyBytes: 300_000) : response
        }
        let dir = try makeTemporaryDirectory()
        let urls = (1...3).map { "'\(server.baseURL)/p\($0).bin'" }.joined(separator: " ")
        let script = """
        '\(SwgetProcess.binaryPath)' -j 3 \(urls) 2>err.txt & pid=$!
        n=0
        while [ $n -lt 3000 ]; do
          ready=0
          for f in p1.bin.part p2.bin.part p3.bin.part; do [ $(stat -c %s $f 2>/dev/null || echo 0) -gt 100000 ] && ready=$((ready+1)); done
          [ $ready -eq 3 ] && break
          sleep 0.01; n=$((n+1))
        done
        kill -INT $pid; wait $pid; echo "status $?"; cat err.txt
        """
        let interrupted = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        #expect(interrupted.stdoutText.contains("status 130"), "\(interrupted.stdoutText)")
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0 != "err.txt" }.sorted()
        #expect(left == ["p1.bin.part", "p1.bin.swget", "p2.bin.part", "p2.bin.swget", "p3.bin.part", "p3.bin.swget"])
        let rerun = try await SwgetProcess.run(["-q", "-j", "3"] + (1...3).map { server.baseURL + "/p\($0).bin" }, in: dir)
        try await server.stop()
        #expect(rerun.status == 0)
        for index in 1...3 {
            #expect(FileManager.default.contents(atPath: dir + "/p\(index).bin").map { [UInt8]($0) } == body)
        }
        // Every part continued where it stopped: each file's second request asked for a range.
        #expect(server.requests.filter { $0.header("Range") != nil }.count == 3)
    }
}
