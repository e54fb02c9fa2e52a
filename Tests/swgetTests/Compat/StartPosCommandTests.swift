import Foundation
import Testing
import SwgetTestSupport

/// wget's `--start-pos` and `--delete-after` with the binary (wget's Test--start-pos,
/// Test--start-pos--continue and Test-ftp--start-pos are the reference).
@Suite("swget --start-pos and --delete-after, end to end")
struct StartPosCommandTests {
    static let whole = Array("0123456789".utf8)

    static func files(_ dir: String) -> [String] { DirectoryLayoutCommandTests.files(dir) }

    @Test func startsAtTheOffsetInANewFile() async throws {
        let server = try await TestServer.start { request in TestResponse.serving(Self.whole, to: request, etag: "\"s\"") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--start-pos", "4", server.baseURL + "/f.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/f.txt") == Data("456789".utf8))
        #expect(server.requests.first?.header("Range") == "bytes=4-")
        #expect(server.requests.first?.header("If-Range") == nil)
        #expect(Self.files(dir) == ["f.txt"], "no .part or .swget left")
    }

    /// Test--start-pos--continue: `--start-pos` wins over `-c`; the existing file stays.
    @Test func winsOverContinue() async throws {
        let server = try await TestServer.start { request in TestResponse.serving(Array("1234".utf8), to: request) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("content should be preserved.\n".utf8).write(to: URL(filePath: dir + "/somefile.txt"))
        let result = try await SwgetProcess.run(["-q", "--start-pos=1", "--continue", server.baseURL + "/somefile.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/somefile.txt") == Data("content should be preserved.\n".utf8))
        #expect(FileManager.default.contents(atPath: dir + "/somefile-1.txt") == Data("234".utf8))
        #expect(server.requests.map { $0.header("Range") } == ["bytes=1-"])
    }

    @Test func aServerIgnoringTheRangeSavesNothing() async throws {
        let server = try await TestServer.start { _ in .ok(Self.whole) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--start-pos", "4", server.baseURL + "/f.txt"], in: dir)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("ignored the range from byte 4"), "\(result.stderr)")
        #expect(Self.files(dir).isEmpty)
        #expect(server.requests.count == 1, "a protocol error, not retried")
    }

    @Test func aWrongContentRangeSavesNothing() async throws {
        let server = try await TestServer.start { _ in
            .status(206, body: Array("23456789".utf8), headers: [("Content-Range", "bytes 2-9/10")])
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-O", "out", "--start-pos", "4", server.baseURL + "/f.txt"], in: dir)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("starts at byte 2, not at byte 4"), "\(result.stderr)")
        #expect(Self.files(dir).isEmpty)
    }

    @Test func toStandardOutputAndWithSizes() async throws {
        let body = [UInt8](repeating: 0x61, count: 3000) + Array("tail".utf8)
        let server = try await TestServer.start { request in TestResponse.serving(body, to: request) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "-O", "-", "--start-pos", "3000", server.baseURL + "/f"], in: dir)
        #expect(result.status == 0 && result.stdoutText == "tail", "\(result.stderr)")
        let sized = try await SwgetProcess.run(["-q", "-O", "-", "--start-pos", "2k", server.baseURL + "/f"], in: dir)
        #expect(sized.status == 0 && sized.stdout.count == 3004 - 2048, "\(sized.stderr)")
        let zero = try await SwgetProcess.run(["-q", "-O", "-", "--start-pos", "0", server.baseURL + "/f"], in: dir)
        #expect(zero.status == 0 && zero.stdout.count == 3004, "\(zero.stderr)")
        #expect(server.requests.map { $0.header("Range") } == ["bytes=3000-", "bytes=2048-", nil])
    }

    @Test(arguments: ["-1", "x", "", "1.5.2"])
    func aBadOffsetIsAUsageError(_ offset: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--start-pos=\(offset)", "http://127.0.0.1:9/f"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
    }

    /// Test-ftp--start-pos: REST at the offset.
    @Test func overFTP() async throws {
        let server = try await FTPTestServer.start(FTPTestServerOptions(files: ["/pub/f.txt": FTPTestFile(Self.whole)]))
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--start-pos", "3", server.url("/pub/f.txt")], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/f.txt") == Data("3456789".utf8))
        #expect(server.commands.contains { $0.verb == "REST" && $0.argument == "3" })
    }

    @Test func deleteAfterRemovesEachFile() async throws {
        let server = try await TestServer.start { request in .text("x \(request.path)") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-nv", "--delete-after", "--write-out", "%{filename_effective}\\n",
                                                 server.baseURL + "/a.txt", server.baseURL + "/b.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir).isEmpty)
        #expect(server.requests.count == 2)
        #expect(result.stderr.contains("Removing 'a.txt'") && result.stderr.contains("Removing 'b.txt'"), "\(result.stderr)")
        #expect(result.stdoutText.contains("a.txt"), "the report is written before the file goes")
        // A special file given with -O is never removed.
        let devNull = try await SwgetProcess.run(["-nv", "--delete-after", "-O", "/dev/null", server.baseURL + "/c"], in: dir)
        #expect(devNull.status == 0, "\(devNull.stderr)")
        #expect(!devNull.stderr.contains("Removing") && !devNull.stderr.contains("cannot delete"), "\(devNull.stderr)")
    }
}
