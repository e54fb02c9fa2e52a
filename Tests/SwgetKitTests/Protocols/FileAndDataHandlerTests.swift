import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

@Suite("file: and data: handlers through download tasks")
struct FileAndDataHandlerTests {
    static func fileURL(_ path: String) -> String {
        "file://" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    @Test func copiesALocalFileUnderItsName() async throws {
        let source = try makeTemporaryDirectory()
        let body = randomBytes(3_000_123, seed: 3)
        try Data(body).write(to: URL(filePath: source + "/a file.bin"))
        let dir = try makeTemporaryDirectory()
        let delegate = RecordingDelegate()
        let (path, response) = try await Session(delegate: delegate).download(request(Self.fileURL(source + "/a file.bin")), to: .directory(dir))
        #expect(path.path == dir + "/a file.bin")
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == 3_000_123)
        #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
        #expect(response.headers["Last-Modified"] != nil)
        #expect(contents(path) == body)
        #expect(delegate.log.contains("progress"))
    }

    @Test func continuesAPartialFileWithARange() async throws {
        let source = try makeTemporaryDirectory()
        let body = randomBytes(200_000, seed: 4)
        try Data(body).write(to: URL(filePath: source + "/f.bin"))
        let dir = try makeTemporaryDirectory()
        try Data(body.prefix(70_000)).write(to: URL(filePath: dir + "/f.bin"))
        var destination = DownloadDestination.file(dir + "/f.bin")
        destination.continuePartial = true
        let delegate = RecordingDelegate()
        let (_, response) = try await Session(delegate: delegate).download(request(Self.fileURL(source + "/f.bin")), to: destination)
        #expect(response.statusCode == 206)
        #expect(response.headers["Content-Range"] == "bytes 70000-199999/200000")
        #expect(contents(dir + "/f.bin") == body)
        #expect(delegate.log.contains("resumed 70000"))
    }

    @Test func aChangedFileIsNotSplicedOnResume() async throws {
        let source = try makeTemporaryDirectory()
        let first = randomBytes(100_000, seed: 1)
        try Data(first).write(to: URL(filePath: source + "/f.bin"))
        let dir = try makeTemporaryDirectory()
        var data = ResumeData(originalURL: Self.fileURL(source + "/f.bin"), finalURL: Self.fileURL(source + "/f.bin"),
                              etag: "\"stale\"", lastModified: nil, expectedLength: 100_000, bytesOnDisk: 40_000,
                              partPath: dir + "/f.bin.part", finalPath: dir + "/f.bin")
        data.acceptsUnvalidatedRange = false
        try Data(randomBytes(40_000, seed: 9)).write(to: URL(filePath: dir + "/f.bin.part"))
        let delegate = RecordingDelegate()
        #expect(await Session(delegate: delegate).downloadTask(withResumeData: data).outcome() == nil)
        #expect(contents(dir + "/f.bin") == first)
        #expect(delegate.log.contains("restarted"))
    }

    @Test func aDirectoryIsAClearError() async throws {
        let source = try makeTemporaryDirectory()
        let dir = try makeTemporaryDirectory()
        let error = try #require(await Session().downloadTask(with: request(Self.fileURL(source)), destination: .directory(dir)).outcome())
        #expect(error == SessionError.fileIO)
        #expect(error.message.contains("is a directory"))
        #expect(files(in: dir).isEmpty)
    }

    @Test(arguments: [("file:///nonexistent/x", SessionError.fileIO), ("file://otherhost/etc/passwd", .unsupportedURL)])
    func refusals(_ url: String, _ expected: SessionError) async throws {
        await #expect(throws: expected) { try await Session().data(for: request(url)) }
    }

    @Test func headOfAFile() async throws {
        let source = try makeTemporaryDirectory()
        try Data([1, 2, 3]).write(to: URL(filePath: source + "/x"))
        var head = request(Self.fileURL(source + "/x"))
        head.method = "HEAD"
        let (body, response) = try await Session().data(for: head)
        #expect(body.isEmpty && response.headers["Content-Length"] == "3")
    }

    @Test func dataURLsBecomeFiles() async throws {
        let dir = try makeTemporaryDirectory()
        let (path, response) = try await Session().download(request("data:text/plain;charset=utf-8;base64,SGVsbG8sIFdvcmxkIQ=="),
                                                             to: .directory(dir))
        #expect(path.lastPathComponent == "data.txt")
        #expect(response.mimeType == "text/plain")
        #expect(response.textEncodingName == "utf-8")
        #expect(contents(path) == Array("Hello, World!".utf8))
        let (named, _) = try await Session().download(request("data:,plain%20text"), to: .file(dir + "/note"))
        #expect(contents(named) == Array("plain text".utf8))
        let (image, _) = try await Session().download(request("data:image/png;base64,iVBORw0K"), to: .directory(dir))
        #expect(image.lastPathComponent == "data.png")
    }

    @Test func aBadDataURLFails() async throws {
        await #expect(throws: SessionError.unsupportedURL) { try await Session().data(for: request("data:;base64,%%%")) }
    }
}
