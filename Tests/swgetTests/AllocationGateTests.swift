import Foundation
import Testing
import SwgetTestSupport

/// Allocation counts are deterministic where wall-clock times are not, so a regression in them
/// fails the suite: the swget command runs as `SwgetAllocationProbe` (the same entry point, with
/// ordo-one's malloc interposer preloaded) twice, with more work the second time, and the
/// difference is what one more file, or one more MiB, costs. Start-up, argument parsing and the
/// first connection cancel out.
///
/// The limits are the counts measured on this build (debug, as `scripts/test` builds) with room
/// for scheduling noise (a read that returns in two pieces, a pooled connection found closed). When
/// a change lowers a count for good, lower its limit in the same commit; when a change must
/// allocate more, say why in the commit that raises it.
@Suite("Allocation gate", .serialized)
struct AllocationGateTests {
    /// Allocations for one more 10 KiB file of a list fetched one after another over one
    /// keep-alive connection (`-j 1`): request, response, file, events, report. 160 measured
    /// (debug build, 2026-11-28, after the reporter took its events at once, a worker per batch
    /// slot instead of a task per job, and paths passed with withCString; 222 before; 235 after
    /// Request/Response/SessionError behind one reference and
    /// async calls without executor hops; 256 after the header lookups by index, the suggested name once and
    /// the byte scans as plain loops; 283 before; this gate caught the first byte scans, whose
    /// generic `lastIndex(of:)` allocated on every call in debug builds: 511; 334–335 before the
    /// byte-wise header, date and URL checks and
    /// the transfers on the event loop; 747–752 before the naming fast paths, the lazy MIME
    /// type and the end of libFoundation in the binary).
    static let perSmallFileLimit = 190
    /// Allocations for one more MiB of a single large body (read buffers, progress events): about
    /// 4–7 measured; the limit leaves room for a loaded machine's smaller reads, and still fails
    /// an allocation per read of 16 KiB or less.
    static let perMiBLimit = 40

    static let smallFile = [UInt8](repeating: 0x61, count: 10 * 1024)

    static func server() async throws -> TestServer {
        try await TestServer.start { request in
            if request.path.hasPrefix("/mib/"), let mib = Int(request.path.dropFirst(5)), (1...64).contains(mib) {
                return .ok([UInt8](repeating: 0x62, count: mib << 20))
            }
            return .ok(smallFile)
        }
    }

    /// Runs the probe with `arguments` in a fresh directory; returns the allocations it counted.
    static func allocations(_ arguments: [String]) async throws -> Int {
        let directory = try makeTemporaryDirectory(prefix: "swget-alloc")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (result, report) = try await ProbeRun.run(arguments, in: directory, timeout: .seconds(600))
        #expect(result.status == 0, "\(result.stderr)")
        guard let count = report["mallocs"], count > 0 else {
            Issue.record("no allocation report from the probe: \(report) \(result.stderr)")
            return 0
        }
        return count
    }

    /// Writes an input list of `count` small-file URLs and returns the probe's arguments for it.
    static func listArguments(_ server: TestServer, count: Int) throws -> [String] {
        let list = try makeTemporaryDirectory(prefix: "swget-alloc-list") + "/urls.txt"
        let text = (0..<count).map { "\(server.baseURL)/f\($0).bin" }.joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: list))
        return ["-q", "-j", "1", "-i", list, "-P", "out"]
    }

    @Test func smallFilesOfAList() async throws {
        let server = try await Self.server()
        let few = try await Self.allocations(try Self.listArguments(server, count: 20))
        let many = try await Self.allocations(try Self.listArguments(server, count: 120))
        try await server.stop()
        let perFile = (many - few) / 100
        print("allocation gate: \(perFile) allocations per small file (limit \(Self.perSmallFileLimit))")
        #expect(perFile > 0, "the probe counted nothing: \(few) then \(many)")
        #expect(perFile <= Self.perSmallFileLimit, "\(perFile) allocations per 10 KiB file, limit \(Self.perSmallFileLimit)")
    }

    @Test func bytesOfOneLargeBody() async throws {
        let server = try await Self.server()
        let small = try await Self.allocations(["-q", "-O", "out.bin", server.baseURL + "/mib/8"])
        let large = try await Self.allocations(["-q", "-O", "out.bin", server.baseURL + "/mib/40"])
        try await server.stop()
        let perMiB = (large - small) / 32
        print("allocation gate: \(perMiB) allocations per MiB of body (limit \(Self.perMiBLimit))")
        #expect(perMiB <= Self.perMiBLimit, "\(perMiB) allocations per MiB, limit \(Self.perMiBLimit)")
    }
}
