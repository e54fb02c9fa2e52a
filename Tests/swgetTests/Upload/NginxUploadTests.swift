import Foundation
import Testing
import SwgetTestSupport

/// swget uploading to a real nginx with WebDAV (`PUT`, `client_max_body_size 0`): a large file
/// and the same bytes from standard input arrive byte for byte, framed as promised
/// (Content-Length for the file, chunked for the pipe, `Expect: 100-continue` for both), with
/// the process's peak memory far below the body's size.
@Suite("swget uploads to nginx (WebDAV)", .serialized)
struct NginxUploadTests {
    /// 64 MiB: large enough that a buffered body would show in the peak memory, small enough
    /// for CI.
    static let size = 64 << 20

    static func withDAV(_ body: (NginxWebDAV, String, [UInt8]) async throws -> Void) async throws {
        let root = try makeTemporaryDirectory(prefix: "swget-dav-root")
        let work = try makeTemporaryDirectory(prefix: "swget-dav-work")
        let dav = try await NginxWebDAV.start(root: root)
        defer {
            dav.stop()
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: work)
        }
        var generator = SplitMix64(seed: 0x5eed_0016)
        var payload = [UInt8](repeating: 0, count: size)
        payload.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        try Data(payload).write(to: URL(fileURLWithPath: work + "/big.bin"))
        try await body(dav, work, payload)
    }

    /// Runs swget under GNU time when it is installed; returns the result and the peak RSS in KiB.
    static func runMeasured(_ arguments: [String], in directory: String, stdin: [UInt8]? = nil) async throws -> (SwgetResult, Int?) {
        guard let time = SwgetProcess.findExecutable("time"), time.hasPrefix("/usr/bin") else {
            return (try await SwgetProcess.run(arguments, in: directory, stdin: stdin, timeout: .seconds(300)), nil)
        }
        let result = try await SwgetProcess.run(executable: time, ["-f", "swget-peak-rss=%M", SwgetProcess.binaryPath] + arguments,
                                                in: directory, stdin: stdin, timeout: .seconds(300))
        let peak = result.stderr.split(separator: "\n").last { $0.hasPrefix("swget-peak-rss=") }
            .flatMap { Int($0.dropFirst("swget-peak-rss=".count)) }
        return (result, peak)
    }

    @Test("a 64 MiB file and 64 MiB from standard input arrive byte for byte, with flat memory")
    func fileAndStandardInput() async throws {
        try await Self.withDAV { dav, work, payload in
            let (file, filePeak) = try await Self.runMeasured(["-q", "-O", "-", "--upload-file", "big.bin", dav.httpURL + "/up/"], in: work)
            #expect(file.status == 0, "\(file.stderr)")
            #expect(FileManager.default.contents(atPath: dav.root + "/up/big.bin").map { [UInt8]($0) } == payload)

            let (piped, pipedPeak) = try await Self.runMeasured(["-q", "-O", "-", "--upload-file", "-", dav.httpURL + "/up/piped.bin"],
                                                               in: work, stdin: payload)
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(FileManager.default.contents(atPath: dav.root + "/up/piped.bin").map { [UInt8]($0) } == payload)

            let log = dav.accessLog().split(separator: "\n").map(String.init)
            #expect(log.contains { $0.hasPrefix("PUT /up/big.bin 201") && $0.contains(#"content_length="\#(Self.size)""#)
                && $0.contains(#"expect="100-continue""#) }, "\(log)")
            #expect(log.contains { $0.hasPrefix("PUT /up/piped.bin 201") && $0.contains(#"transfer_encoding="chunked""#)
                && $0.contains(#"expect="100-continue""#) }, "\(log)")
            // A body held in memory would put the peak above its 64 MiB.
            for peak in [filePeak, pipedPeak].compactMap({ $0 }) {
                #expect(peak < 48 * 1024, "peak RSS \(peak) KiB for a \(Self.size >> 20) MiB upload (file \(filePeak ?? 0), pipe \(pipedPeak ?? 0))")
            }
        }
    }

    @Test("a PUT that replaces a file answers 204; the answer to -O - is empty, the file is the new one")
    func replace() async throws {
        try await Self.withDAV { dav, work, payload in
            let small = Array(payload.prefix(1000))
            try Data(small).write(to: URL(fileURLWithPath: work + "/small.bin"))
            for _ in 0..<2 {
                let result = try await SwgetProcess.run(["-q", "-O", "-", "--upload-file", "small.bin", dav.httpURL + "/r/x.bin"], in: work)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(FileManager.default.contents(atPath: dav.root + "/r/x.bin").map { [UInt8]($0) } == small)
            let statuses = dav.accessLog().split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst(2).first }
            #expect(statuses == ["201", "204"])
            let delete = try await SwgetProcess.run(["-q", "-O", "-", "--method", "delete", dav.httpURL + "/r/x.bin"], in: work)
            #expect(delete.status == 0, "\(delete.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dav.root + "/r/x.bin"))
        }
    }
}
