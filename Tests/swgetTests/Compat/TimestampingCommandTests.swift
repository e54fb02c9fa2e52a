import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// wget's timestamps with the binary: saved files get the server's Last-Modified, `-N` asks
/// with If-Modified-Since and replaces the file only when the server's is newer, `--no-cache`
/// and `--max-time`.
@Suite("swget timestamps and conditional downloads, end to end")
struct TimestampingCommandTests {
    static let old = "Mon, 02 Jan 2023 03:04:05 GMT"
    static let oldSeconds: Int = 1_672_628_645
    static let new = "Tue, 03 Jan 2023 03:04:05 GMT"

    /// A server whose /f.txt changes when `version` does; it honours If-Modified-Since.
    final class Resource: Sendable {
        let state = Mutex((body: "first\n", modified: TimestampingCommandTests.old))
        let seen = Mutex<[String]>([])
        func answer(_ request: TestRequest) -> TestResponse {
            let (body, modified) = state.withLock { ($0.body, $0.modified) }
            seen.withLock { $0.append("\(request.method) \(request.header("If-Modified-Since") ?? "-")") }
            if let since = request.header("If-Modified-Since"), since == modified || (modified == TimestampingCommandTests.old && since == TimestampingCommandTests.new) {
                return .status(304)
            }
            return TestResponse.ok(Array(body.utf8), headers: [("Last-Modified", modified), ("Content-Type", "text/plain")])
        }
    }

    static func mtime(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mtim.tv_sec) : nil
    }

    @Test func savedFilesGetTheServersTimeUnlessAskedNotTo() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", server.baseURL + "/f.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.mtime(dir + "/f.txt") == Self.oldSeconds)
        let other = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: other) }
        let plain = try await SwgetProcess.run(["-q", "--no-use-server-timestamps", server.baseURL + "/f.txt"], in: other)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(Self.mtime(other + "/f.txt").map { $0 > Self.oldSeconds + 86_400 * 365 } == true)
    }

    @Test func timestampingSkipsACurrentFileAndReplacesAnOlderOne() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/f.txt"

        let first = try await SwgetProcess.run(["-N", url], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await SwgetProcess.run(["-N", url], in: dir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("not retrieving"), "\(second.stderr)")
        #expect(try String(contentsOfFile: dir + "/f.txt", encoding: .utf8) == "first\n")

        resource.state.withLock { $0 = (body: "second, longer\n", modified: Self.new) }
        let third = try await SwgetProcess.run(["-N", url], in: dir)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try String(contentsOfFile: dir + "/f.txt", encoding: .utf8) == "second, longer\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["f.txt"], "replaced in place, no f-1.txt")
        #expect(resource.seen.withLock { $0 } == ["GET -", "GET \(Self.old)", "GET \(Self.old)"])
    }

    /// A server that ignores If-Modified-Since: an answer not newer and of the same length
    /// leaves the file alone (wget compares Last-Modified and size).
    @Test func timestampingWithoutIfModifiedSinceComparesTheAnswer() async throws {
        let server = try await TestServer.start { _ in
            TestResponse.ok(Array("same\n".utf8), headers: [("Last-Modified", Self.old)])
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/s.txt"
        #expect(try await SwgetProcess.run(["-q", url], in: dir).status == 0)
        let again = try await SwgetProcess.run(["-N", "--no-if-modified-since", url], in: dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("not retrieving"), "\(again.stderr)")
        #expect(server.requests.last?.header("If-Modified-Since") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["s.txt"])
    }

    @Test func noCacheAsksCachesForAFreshCopy() async throws {
        let server = try await TestServer.start { _ in .text("fresh") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--no-cache", "-O", "-", server.baseURL + "/n"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.first?.header("Cache-Control") == "no-cache")
        #expect(server.requests.first?.header("Pragma") == "no-cache")
    }

    @Test func maxTimeEndsASlowDownload() async throws {
        let body = [UInt8](repeating: 7, count: 2_000_000)
        let gate = BodyGate()
        let server = try await TestServer.start { request in
            TestResponse.serving(body, to: request, etag: "\"m\"").trickled(bytesPerWrite: 1000, every: .milliseconds(1), gate: gate)
        }
        defer { gate.openFully(); Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-t", "1", "--max-time", "1", server.baseURL + "/slow.bin"], in: dir)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("did not finish within 1"), "\(result.stderr)")
    }
}

/// wget's directory layout with the binary.
@Suite("swget directory layout, end to end")
struct DirectoryLayoutCommandTests {
    static func files(_ dir: String) -> [String] {
        (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? [])
            .filter { var d: ObjCBool = false; return FileManager.default.fileExists(atPath: dir + "/" + $0, isDirectory: &d) && !d.boolValue }
            .sorted()
    }

    @Test(arguments: [
        (["-x"], "127.0.0.1:PORT/a/b/f.txt"),
        (["--force-directories", "-nH"], "a/b/f.txt"),
        (["-x", "-nH", "--cut-dirs", "1"], "b/f.txt"),
        (["-x", "--protocol-directories"], "http/127.0.0.1:PORT/a/b/f.txt"),
        (["-x", "-nd"], "f.txt"),
        ([], "f.txt"),
    ])
    func layout(arguments: [String], expected: String) async throws {
        let server = try await TestServer.start { _ in .text("layout") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "-P", "out"] + arguments + [server.baseURL + "/a/b/f.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir + "/out") == [expected.replacingOccurrences(of: "PORT", with: "\(server.port)")])
    }

    @Test func defaultPageAndAdjustExtension() async throws {
        let server = try await TestServer.start { request in
            request.path == "/page" ? TestResponse.ok(Array("<p>".utf8), headers: [("Content-Type", "text/html")]) : .text("dir")
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--default-page", "start.txt", "-E", server.baseURL + "/", server.baseURL + "/page"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["page.html", "start.txt"])
    }

    @Test func hostileDefaultPageIsAUsageError() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--default-page", "../x", "http://127.0.0.1:9/"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
    }
}
