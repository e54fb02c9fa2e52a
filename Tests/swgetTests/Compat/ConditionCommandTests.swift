import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// curl's conditional downloads with the binary: `--time-cond` (`-z`) by date or file, with
/// its `-` for "older than", and `--etag-save` / `--etag-compare`.
@Suite("swget --time-cond and ETag conditions, end to end")
struct ConditionCommandTests {
    static let modified = "Mon, 02 Jan 2023 03:04:05 GMT"
    static let modifiedSeconds = 1_672_628_645

    /// A resource modified at `modified` that honours If-Modified-Since, If-Unmodified-Since and
    /// If-None-Match, or ignores every condition when `ignoresConditions`.
    final class Resource: Sendable {
        let etag = Mutex("\"v1\"")
        let ignoresConditions: Bool
        init(ignoresConditions: Bool = false) { self.ignoresConditions = ignoresConditions }

        func answer(_ request: TestRequest) -> TestResponse {
            let tag = etag.withLock { $0 }
            let modified = Date(timeIntervalSince1970: TimeInterval(ConditionCommandTests.modifiedSeconds))
            if !ignoresConditions {
                if let since = request.header("If-Modified-Since").flatMap(Self.parse), modified <= since { return .status(304) }
                if let since = request.header("If-Unmodified-Since").flatMap(Self.parse), modified > since { return .status(412) }
                if let match = request.header("If-None-Match"), match == tag { return .status(304) }
            }
            return .ok(Array("body\n".utf8), headers: [("Last-Modified", ConditionCommandTests.modified), ("ETag", tag)])
        }

        static func parse(_ text: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.date(from: text)
        }
    }

    static func files(_ dir: String) -> [String] { DirectoryLayoutCommandTests.files(dir) }

    @Test func newerThanADate() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/f.txt"
        // The server's file is older than the date: not retrieved.
        let skipped = try await SwgetProcess.run(["-z", "Tue, 03 Jan 2023 00:00:00 GMT", url], in: dir)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("not modified since Tue, 03 Jan 2023 00:00:00 GMT"), "\(skipped.stderr)")
        #expect(Self.files(dir).isEmpty)
        // Newer than the date: retrieved.
        let fetched = try await SwgetProcess.run(["-q", "--time-cond", "2023-01-01", url], in: dir)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(Self.files(dir) == ["f.txt"])
        #expect(server.requests.map { $0.header("If-Modified-Since") } == ["Tue, 03 Jan 2023 00:00:00 GMT", "Sun, 01 Jan 2023 00:00:00 GMT"])
    }

    @Test func newerThanAFile() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(filePath: dir + "/local.txt"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(Self.modifiedSeconds))],
                                              ofItemAtPath: dir + "/local.txt")
        let result = try await SwgetProcess.run(["-z", "local.txt", "-O", "local.txt", server.baseURL + "/f.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.first?.header("If-Modified-Since") == Self.modified)
        #expect(try String(contentsOfFile: dir + "/local.txt", encoding: .utf8) == "old")
    }

    @Test func olderThanADate() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/f.txt"
        // Modified after 1 Jan: 412, not retrieved.
        let skipped = try await SwgetProcess.run(["-z", "-1 Jan 2023", url], in: dir)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("modified after Sun, 01 Jan 2023 00:00:00 GMT"), "\(skipped.stderr)")
        #expect(Self.files(dir).isEmpty)
        // Not modified since 5 Jan: retrieved.
        let fetched = try await SwgetProcess.run(["-q", "--time-cond=-5 Jan 2023", url], in: dir)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(Self.files(dir) == ["f.txt"])
        #expect(server.requests.map { $0.header("If-Unmodified-Since") } == ["Sun, 01 Jan 2023 00:00:00 GMT", "Thu, 05 Jan 2023 00:00:00 GMT"])
        #expect(server.requests.allSatisfy { $0.header("If-Modified-Since") == nil })
    }

    /// A server that ignores the conditions: the answer's Last-Modified decides, as in curl.
    @Test func aServerIgnoringTheConditionIsJudgedByLastModified() async throws {
        let resource = Resource(ignoresConditions: true)
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/f.txt"
        #expect(try await SwgetProcess.run(["-q", "-z", "3 Jan 2023", url], in: dir).status == 0)
        #expect(try await SwgetProcess.run(["-q", "-z", "-1 Jan 2023", url], in: dir).status == 0)
        #expect(Self.files(dir).isEmpty)
        #expect(try await SwgetProcess.run(["-q", "-z", "1 Jan 2023", url], in: dir).status == 0)
        #expect(Self.files(dir) == ["f.txt"])
    }

    @Test(arguments: [["-z", "not a date"], ["-z", "-"], ["-N", "-z", "1 Jan 2023"], ["-N", "--etag-compare", "tag"],
                      ["--etag-compare", "tag", "-z", "-1 Jan 2023"]])
    func badConditionsAreUsageErrors(_ arguments: [String]) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(arguments + ["http://127.0.0.1:9/f"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 3, "\(result.stderr)")
    }

    @Test func etagSaveThenCompare() async throws {
        let resource = Resource()
        let server = try await TestServer.start { resource.answer($0) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let arguments = ["--etag-compare", "tag", "--etag-save", "tag", "-O", "f.txt", server.baseURL + "/f.txt"]
        // First run: no tag file, no condition; the tag is saved.
        let first = try await SwgetProcess.run(["-q"] + arguments, in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try String(contentsOfFile: dir + "/tag", encoding: .utf8) == "\"v1\"\n")
        // Same tag: 304, the file and the tag file stay.
        try Data("local\n".utf8).write(to: URL(filePath: dir + "/f.txt"))
        let second = try await SwgetProcess.run(arguments, in: dir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("unchanged (same ETag)"), "\(second.stderr)")
        #expect(try String(contentsOfFile: dir + "/f.txt", encoding: .utf8) == "local\n")
        // A new tag: fetched, and the new tag saved.
        resource.etag.withLock { $0 = "W/\"v2\"" }
        let third = try await SwgetProcess.run(["-q"] + arguments, in: dir)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try String(contentsOfFile: dir + "/f.txt", encoding: .utf8) == "body\n")
        #expect(try String(contentsOfFile: dir + "/tag", encoding: .utf8) == "W/\"v2\"\n")
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\"", "\"v1\""])
    }

    @Test func etagSaveWithoutAnETagWritesAnEmptyFile() async throws {
        let server = try await TestServer.start { _ in .text("no tag") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("\"stale\"\n".utf8).write(to: URL(filePath: dir + "/tag"))
        let result = try await SwgetProcess.run(["-q", "--etag-save", "tag", "-O", "-", server.baseURL + "/f"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/tag") == Data())
    }

    @Test func etagOptionsTakeOneURL() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--etag-save", "tag", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("one URL"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/tag"))
    }

    @Test func anUnwritableTagFileIsAFileError() async throws {
        let server = try await TestServer.start { _ in .text("x").withHeader("ETag", "\"t\"") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--etag-save", "missing/dir/tag", "-O", "-", server.baseURL + "/f"], in: dir)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("--etag-save"), "\(result.stderr)")
    }
}
