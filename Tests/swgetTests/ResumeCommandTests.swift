import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// Interrupted downloads continued by the command: kill -9 at several points, Ctrl-C, `-c`
/// on files left by other tools, retries. Each ends with a byte-identical file and nothing
/// left over.
@Suite("swget resume, end to end", .serialized)
struct ResumeCommandTests {
    static let source: [UInt8] = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }

    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }
    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// Runs swget in the background and SIGKILLs it once `part` holds at least `bytes` bytes
    /// (and its state file has been written after that size).
    func runAndKill(_ url: String, in dir: String, atLeast bytes: Int) async throws -> SwgetResult {
        let script = """
        '\(SwgetProcess.binaryPath)' -q '\(url)' & pid=$!
        n=0
        while [ $n -lt 3000 ]; do
          size=$(stat -c %s data.bin.part 2>/dev/null || echo 0)
          if [ "$size" -ge \(bytes) ] && [ data.bin.swget -nt data.bin.part -o "$size" -ge \(bytes + 300_000) ]; then break; fi
          sleep 0.01; n=$((n+1))
        done
        kill -9 $pid; wait $pid; echo "killed at $(stat -c %s data.bin.part)"
        """
        return try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
    }

    @Test func killNineAtSeveralPointsThenRerun() async throws {
        let server = try await TestServer.start { request in
            TestResponse.serving(Self.source, to: request, etag: "\"k\"").trickled(bytesPerWrite: 30_000, every: .milliseconds(20))
        }
        let dir = try makeTemporaryDirectory()
        let url = server.baseURL + "/data.bin"
        var killedAt: [Int] = []
        for point in [400_000, 1_500_000] {
            let result = try await runAndKill(url, in: dir, atLeast: point)
            killedAt.append(Int(result.stdoutText.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "") ?? -1)
            #expect(list(dir) == ["data.bin.part", "data.bin.swget"], "\(result.stderr)")
        }
        let final = try await SwgetProcess.run(["-q", url], in: dir)
        try await server.stop()
        #expect(final.status == 0, "\(final.stderr)")
        #expect(list(dir) == ["data.bin"])
        #expect(read(dir + "/data.bin") == Self.source)
        // The reruns asked for ranges, never from zero again.
        let ranges = server.requests.compactMap { $0.header("Range") }
        #expect(ranges.count == 2, "\(ranges) killed at \(killedAt)")
        #expect(server.requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"k\"" })
    }

    @Test func interruptKeepsThePartAndSaysHowToContinue() async throws {
        let server = try await TestServer.start { request in
            TestResponse.serving(Self.source, to: request, etag: "\"i\"").trickled(bytesPerWrite: 30_000, every: .milliseconds(20))
        }
        let dir = try makeTemporaryDirectory()
        let url = server.baseURL + "/data.bin"
        let script = """
        '\(SwgetProcess.binaryPath)' '\(url)' 2>err.txt & pid=$!
        n=0; while [ $(stat -c %s data.bin.part 2>/dev/null || echo 0) -lt 500000 ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done
        kill -INT $pid; wait $pid; echo "status $?"; cat err.txt; rm err.txt
        """
        let interrupted = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        #expect(interrupted.stdoutText.contains("status 130"), "\(interrupted.stdoutText)")
        #expect(interrupted.stdoutText.contains("interrupted"))
        #expect(interrupted.stdoutText.contains("Run the same command again"))
        #expect(list(dir) == ["data.bin.part", "data.bin.swget"])
        let rerun = try await SwgetProcess.run([url], in: dir)
        try await server.stop()
        #expect(rerun.status == 0)
        #expect(rerun.stderr.contains("kept from before"))
        #expect(read(dir + "/data.bin") == Self.source)
        #expect(list(dir) == ["data.bin"])
    }

    @Test func continueFlagTakesOverAFileFromAnotherTool() async throws {
        let server = try await TestServer.start { request in TestResponse.serving(Self.source, to: request, etag: "\"c\"") }
        let dir = try makeTemporaryDirectory()
        // A truncated download left by another tool under the final name, and a complete one.
        try Data(Self.source.prefix(1_234_567)).write(to: URL(fileURLWithPath: dir + "/data.bin"))
        try Data(Self.source).write(to: URL(fileURLWithPath: dir + "/whole.bin"))
        let partial = try await SwgetProcess.run(["-q", "-c", server.baseURL + "/data.bin"], in: dir)
        let whole = try await SwgetProcess.run(["-q", "-c", server.baseURL + "/whole.bin"], in: dir)
        try await server.stop()
        #expect(partial.status == 0 && whole.status == 0, "\(partial.stderr) \(whole.stderr)")
        #expect(read(dir + "/data.bin") == Self.source)
        #expect(read(dir + "/whole.bin") == Self.source)
        #expect(list(dir) == ["data.bin", "whole.bin"])
        let ranges = server.requests.compactMap { $0.header("Range") }
        #expect(ranges == ["bytes=1234567-", "bytes=3000000-"])
    }

    /// wget's rule: `-c` never truncates the user's file. A server that cannot continue it
    /// leaves it as it is, with a clear line and exit 1.
    @Test func continueWithoutRangeSupportKeepsTheLocalFile() async throws {
        let server = try await TestServer.start { _ in .ok(Self.source) }  // ignores Range
        let dir = try makeTemporaryDirectory()
        let local = Array(repeating: UInt8(0xEE), count: 1000)
        try Data(local).write(to: URL(fileURLWithPath: dir + "/data.bin"))
        let result = try await SwgetProcess.run(["-q", "-c", server.baseURL + "/data.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("data.bin' is left as it is"), "\(result.stderr)")
        #expect(read(dir + "/data.bin") == local)
        #expect(list(dir) == ["data.bin"])
    }

    @Test func writeErrorsKeepThePartAndStateForALaterRun() async throws {
        let server = try await TestServer.start { request in TestResponse.serving(Self.source, to: request, etag: "\"w\"") }
        let dir = try makeTemporaryDirectory()
        let url = server.baseURL + "/data.bin"
        // ulimit -f 1000: writes past 512,000 bytes fail with EFBIG, as on a full disk.
        let full = try await SwgetProcess.run(executable: "/bin/sh",
                                              ["-c", "ulimit -f 1000; exec '\(SwgetProcess.binaryPath)' -q '\(url)'"], in: dir)
        #expect(full.status == 3, "\(full.stderr)")
        #expect(full.stderr.contains("File too large"))
        #expect(full.stderr.contains("data.bin.part"))
        #expect(list(dir) == ["data.bin.part", "data.bin.swget"])
        // Space again: the same command finishes the file from where it stopped.
        let rerun = try await SwgetProcess.run(["-q", url], in: dir)
        try await server.stop()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(read(dir + "/data.bin") == Self.source)
        #expect(list(dir) == ["data.bin"])
        // It continued from the size limit (512 000 bytes: sh counts 512-byte blocks), not from zero.
        let range = server.requests.last?.header("Range") ?? ""
        #expect(range == "bytes=512000-", "\(server.requests.map { $0.header("Range") ?? "-" })")
    }

    @Test func transientFailuresAreRetriedAndTriesAreHonoured() async throws {
        let count = Mutex(0)
        let server = try await TestServer.start { request in
            let n = count.withLock { $0 += 1; return $0 }
            let response = TestResponse.serving(Self.source, to: request, etag: "\"t\"")
            return n < 4 ? response.closing(afterBodyBytes: 100_000 * n) : response
        }
        let dir = try makeTemporaryDirectory()
        let ok = try await SwgetProcess.run(["--waitretry", "0.05", server.baseURL + "/data.bin"], in: dir)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stderr.contains("retrying"))
        #expect(read(dir + "/data.bin") == Self.source)
        count.withLock { $0 = 0 }
        let limited = try await SwgetProcess.run(["-q", "-t", "2", "--waitretry", "0.05", "-O", "two.bin", server.baseURL + "/data.bin"], in: dir)
        try await server.stop()
        #expect(limited.status == 4)
        #expect(list(dir).contains("two.bin.part"))
    }
}

/// `--split`: kill -9 in the middle, and the rerun fetches only the missing ranges.
@Suite("swget --split, end to end")
struct SplitCommandTests {
    static let source: [UInt8] = (0..<3_000_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    @Test func killedSegmentedDownloadFinishesOnlyTheMissingRanges() async throws {
        let server = try await TestServer.start { request in
            TestResponse.serving(Self.source, to: request, etag: "\"k\"").trickled(bytesPerWrite: 4_000, every: .milliseconds(20))
        }
        let dir = try makeTemporaryDirectory()
        let url = server.baseURL + "/seg.bin"
        let script = """
        '\(SwgetProcess.binaryPath)' -q --split 8 --min-split-size 256k '\(url)' & pid=$!
        n=0; while [ $(grep -o '"end"' seg.bin.swget 2>/dev/null | wc -l) -lt 2 ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done
        kill -9 $pid; wait $pid; echo "status $?"
        """
        let killed = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        #expect(killed.stdoutText.contains("status 137"), "\(killed.stdoutText)")
        let state = try #require(FileManager.default.contents(atPath: dir + "/seg.bin.swget"))
        #expect(String(decoding: state, as: UTF8.self).contains("\"segments\""))
        let before = server.requests.count
        let rerun = try await SwgetProcess.run(["-q", "--split", "8", "--min-split-size", "256k", url], in: dir)
        try await server.stop()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/seg.bin").map { [UInt8]($0) } == Self.source)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []) == ["seg.bin"])
        // The rerun only asked for ranges, never for the whole file again.
        #expect(server.requests.dropFirst(before).allSatisfy { $0.header("Range") != nil })
    }

    @Test func splitValuesAreChecked() async throws {
        for args in [["--split", "0"], ["--split", "65"], ["--min-split-size", "big"]] {
            let result = try await SwgetProcess.run(args + ["http://127.0.0.1:1/"], in: try makeTemporaryDirectory())
            #expect(result.status == 2, "\(args)")
        }
    }
}
