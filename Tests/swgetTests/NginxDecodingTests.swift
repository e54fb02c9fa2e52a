import Foundation
import Testing
import SwgetTestSupport

/// Compressed transfers from a real nginx: `gzip on` (compressed on the fly, chunked) and
/// `gzip_static` (a precompressed NAME.gz with a length), and a .gz file stored decoded.
@Suite("swget decoding against nginx", .serialized)
struct NginxDecodingTests {
    /// A few MiB of log-like text.
    static let text: [UInt8] = Array((0..<120_000).map { "2026-11-22T23:\($0 % 60):00Z GET /item/\($0 * 7919 % 100_003) 200 \($0 % 977)\n" }.joined().utf8)

    static func withNginx(_ body: (Nginx, String) async throws -> Void) async throws {
        let root = try makeTemporaryDirectory(prefix: "swget-nginx-gz")
        try Data(text).write(to: URL(fileURLWithPath: root + "/log.txt"))
        try Data(Compression.gzip(text)).write(to: URL(fileURLWithPath: root + "/log.txt.gz"))
        let nginx = try await Nginx.start(root: root)
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(atPath: root)
        }
        try await body(nginx, root)
    }

    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    @Test func onTheFlyAndStaticGzipDecodeByteForByte() async throws {
        try await Self.withNginx { nginx, _ in
            let dir = try makeTemporaryDirectory()
            for (location, output) in [("/gzip/log.txt", "fly.txt"), ("/static-gz/log.txt", "static.txt")] {
                let result = try await SwgetProcess.run(["--compressed", "-S", "-O", output, nginx.httpURL + location], in: dir)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("Content-Encoding: gzip"), "\(location) was not compressed")
                #expect(read(dir + "/" + output) == Self.text, "\(location)")
            }
        }
    }

    @Test func withoutCompressedNginxSendsIdentity() async throws {
        try await Self.withNginx { nginx, _ in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-S", "-O", "plain.txt", nginx.httpURL + "/gzip/log.txt"], in: dir)
            #expect(result.status == 0)
            #expect(!result.stderr.contains("Content-Encoding"))
            #expect(read(dir + "/plain.txt") == Self.text)
        }
    }

    @Test func gunzipStoresTheDecodedFileFromNginx() async throws {
        try await Self.withNginx { nginx, _ in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["--gunzip", nginx.httpURL + "/log.txt.gz"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["log.txt"])
            #expect(read(dir + "/log.txt") == Self.text)
        }
    }
}
