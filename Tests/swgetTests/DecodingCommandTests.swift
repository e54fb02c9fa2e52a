import Foundation
import Testing
import SwgetTestSupport

/// `--compressed`, `--no-decompress`, `--gunzip` and `--max-filesize`, end to end.
@Suite("swget decoding, end to end")
struct DecodingCommandTests {
    static let text = Array((0..<40_000).map { "line \($0) of a compressible file\n" }.joined().utf8)

    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    /// Answers in gzip only to a client that asks for it, as a well-behaved server does.
    static func negotiating(_ request: TestRequest) -> TestResponse {
        guard request.header("Accept-Encoding")?.contains("gzip") == true else { return .ok(text) }
        return .ok(Compression.gzip(text), headers: [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])
    }

    @Test func compressedAsksForEveryCodingAndSavesTheDecodedBody() async throws {
        let server = try await TestServer.start(handler: Self.negotiating)
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["--compressed", server.baseURL + "/notes.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(server.requests.first?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
        #expect(read(dir + "/notes.txt") == Self.text)
        #expect(list(dir) == ["notes.txt"])
        // The summary gives both sizes.
        #expect(result.stderr.contains("as gzip]"))
    }

    @Test func withoutCompressedIdentityIsAskedAndAForcedCodingIsStillDecoded() async throws {
        let gz = Compression.gzip(Self.text)
        let server = try await TestServer.start { _ in .ok(gz, headers: [("Content-Encoding", "gzip")]) }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-S", server.baseURL + "/notes.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(server.requests.first?.header("Accept-Encoding") == "identity")
        #expect(read(dir + "/notes.txt") == Self.text)
        #expect(result.stderr.contains("Decoding Content-Encoding: gzip"))
    }

    @Test func noDecompressKeepsTheBytesAsSent() async throws {
        let server = try await TestServer.start(handler: Self.negotiating)
        let dir = try makeTemporaryDirectory()
        for flag in ["--no-decompress", "--raw"] {
            let result = try await SwgetProcess.run(["--compressed", flag, "-O", "out\(flag).gz", server.baseURL + "/n"], in: dir)
            #expect(result.status == 2)  // the two contradict each other
            let kept = try await SwgetProcess.run([flag, "-O", "raw\(flag)", server.baseURL + "/n", "-H", "Accept-Encoding: gzip"], in: dir)
            #expect(kept.status == 0)
            #expect(read(dir + "/raw\(flag)") == Compression.gzip(Self.text))
        }
        try await server.stop()
    }

    @Test func corruptBodyExitsSevenAndLeavesNoFile() async throws {
        var gz = Compression.gzip(Self.text)
        gz.removeLast(100)
        let server = try await TestServer.start { [gz] _ in .ok(gz, headers: [("Content-Encoding", "gzip")]) }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run([server.baseURL + "/notes.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 7)
        #expect(result.stderr.contains("truncated gzip data"))
        #expect(list(dir) == [])
    }

    @Test func gunzipStoresTheDecodedPayloadWithoutItsSuffix() async throws {
        let gz = Compression.gzip(Self.text)
        let server = try await TestServer.start { _ in .ok(gz, headers: [("Content-Type", "application/octet-stream")]) }
        let dir = try makeTemporaryDirectory()
        try Data("taken".utf8).write(to: URL(fileURLWithPath: dir + "/data.csv"))
        for flag in ["--gunzip", "--decode"] {
            let result = try await SwgetProcess.run([flag, server.baseURL + "/data.csv.gz"], in: dir)
            #expect(result.status == 0)
        }
        let plain = try await SwgetProcess.run([server.baseURL + "/data.csv.gz"], in: dir)
        try await server.stop()
        #expect(plain.status == 0)
        // Unique naming still applies to the decoded name.
        #expect(list(dir) == ["data-1.csv", "data-2.csv", "data.csv", "data.csv.gz"])
        #expect(read(dir + "/data-1.csv") == Self.text)
        #expect(read(dir + "/data-2.csv") == Self.text)
        #expect(read(dir + "/data.csv.gz") == gz)
    }

    @Test func maxFilesizeBoundsTheDecodedSize() async throws {
        let bomb = Compression.gzip([UInt8](repeating: 0, count: 32 << 20))
        let server = try await TestServer.start { request in
            request.path == "/bomb" ? .ok(bomb, headers: [("Content-Encoding", "gzip")]) : .ok(Self.text)
        }
        let dir = try makeTemporaryDirectory()
        let bombed = try await SwgetProcess.run(["--max-filesize", "1M", server.baseURL + "/bomb"], in: dir)
        let large = try await SwgetProcess.run(["--max-filesize", "1000", server.baseURL + "/large.txt"], in: dir)
        let fits = try await SwgetProcess.run(["--max-filesize", "2M", server.baseURL + "/fits.txt"], in: dir)
        let invalid = try await SwgetProcess.run(["--max-filesize", "lots", server.baseURL + "/fits.txt"], in: dir)
        try await server.stop()
        #expect(bombed.status == 1)
        #expect(bombed.stderr.contains("exceeds the limit of 1048576 bytes"))
        #expect(large.status == 1)
        #expect(fits.status == 0)
        #expect(invalid.status == 2)
        #expect(list(dir) == ["fits.txt"])
    }
}
