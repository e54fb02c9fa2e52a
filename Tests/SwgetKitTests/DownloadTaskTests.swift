import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

@Suite("Download tasks against the in-process server")
struct DownloadTaskTests {
    @Test func lengthFramedBodyLandsUnderItsName() async throws {
        let body = bytes(300_000)
        let dir = try makeTemporaryDirectory()
        let delegate = RecordingDelegate()
        try await withServer({ _ in .ok(body) }) { server in
            let session = Session(delegate: delegate)
            let (path, response) = try await session.download(request(server.baseURL + "/files/report.pdf"), to: .directory(dir))
            #expect(path.path == dir + "/report.pdf")
            #expect(response.statusCode == 200)
            #expect(response.expectedContentLength == 300_000)
        }
        #expect(fingerprint(contents(dir + "/report.pdf")) == fingerprint(body))
        #expect(files(in: dir) == ["report.pdf"])
        #expect(delegate.log == ["response 200", "created report.pdf.part", "progress", "finished report.pdf", "complete ok"])
    }

    @Test(arguments: [TestResponse.Framing.chunked(chunkSize: 777), .closeDelimited])
    func otherFramings(_ framing: TestResponse.Framing) async throws {
        let body = bytes(123_457)
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in
            var response = TestResponse.ok(body)
            response.framing = framing
            return response
        }) { server in
            let (path, response) = try await Session().download(request(server.baseURL + "/data.bin"), to: .directory(dir))
            #expect(response.expectedContentLength == nil)
            #expect(fingerprint(contents(path)) == fingerprint(body))
        }
    }

    @Test func emptyPathIsIndexHTMLAndNamesAreNeverReused() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .text("<html></html>").withHeader("Content-Type", "text/html") }) { server in
            let session = Session()
            for _ in 0..<3 {
                _ = try await session.download(request(server.baseURL + "/"), to: .directory(dir))
            }
        }
        #expect(files(in: dir) == ["index-1.html", "index-2.html", "index.html"])
    }

    @Test func contentDispositionNamesTheFileUnlessDisabled() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in
            .text("x").withHeader("Content-Disposition", "attachment; filename=\"../evil.txt\"; filename*=UTF-8''na%C3%AFve.txt")
        }) { server in
            let session = Session()
            _ = try await session.download(request(server.baseURL + "/get?id=1"), to: .directory(dir))
            var plain = DownloadDestination.directory(dir)
            plain.useContentDisposition = false
            _ = try await session.download(request(server.baseURL + "/get?id=1"), to: plain)
        }
        #expect(files(in: dir) == ["get.txt", "naïve.txt"])
    }

    @Test func noClobberSkipsAnExistingFile() async throws {
        let dir = try makeTemporaryDirectory()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/keep.txt"))
        try await withServer({ _ in .text("theirs") }) { server in
            var destination = DownloadDestination.directory(dir)
            destination.collision = .skip
            let task = Session().downloadTask(with: request(server.baseURL + "/keep.txt"), destination: destination)
            #expect(await task.outcome() == nil)
            #expect(task.skippedExistingFile?.path == dir + "/keep.txt")
            #expect(task.location == nil)
        }
        #expect(contents(dir + "/keep.txt") == Array("mine".utf8))
        #expect(files(in: dir) == ["keep.txt"])
    }

    @Test func explicitFileIsReplacedAndStdoutLikeFilesAreWrittenInPlace() async throws {
        let dir = try makeTemporaryDirectory()
        try Data("old content".utf8).write(to: URL(fileURLWithPath: dir + "/out.bin"))
        try await withServer({ _ in .text("new") }) { server in
            let session = Session()
            let (path, _) = try await session.download(request(server.baseURL + "/x"), to: .file(dir + "/out.bin"))
            #expect(path.path == dir + "/out.bin")
            let (devnull, _) = try await session.download(request(server.baseURL + "/x"), to: .file("/dev/null"))
            #expect(devnull.path == "/dev/null")
        }
        #expect(contents(dir + "/out.bin") == Array("new".utf8))
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test func abruptCloseKeepsThePartFile() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(bytes(100_000)).closing(afterBodyBytes: 40_000) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/big.iso"), destination: .directory(dir))
            let error = await task.outcome()
            #expect(error == SessionError.connectionClosed)
            #expect(error?.category == .network)
            #expect(task.partialFile?.path == dir + "/big.iso.part")
        }
        #expect(files(in: dir) == ["big.iso.part"])
        #expect(fingerprint(contents(dir + "/big.iso.part")) == fingerprint(Array(bytes(100_000).prefix(40_000))))
    }

    @Test func stalledBodyTimesOut() async throws {
        var configuration = SessionConfiguration.default
        configuration.idleReadTimeout = .milliseconds(300)
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(bytes(10_000)).stalling(afterBodyBytes: 5_000) }) { server in
            let task = Session(configuration: configuration).downloadTask(with: request(server.baseURL + "/s"), destination: .directory(dir))
            let error = await task.outcome()
            #expect(error == SessionError.readTimedOut)
        }
    }

    @Test func slowButSteadyBodyIsNotATimeout() async throws {
        var configuration = SessionConfiguration.default
        configuration.idleReadTimeout = .seconds(3)
        let body = bytes(4_000)
        // The whole body takes longer than the idle timeout, but no gap between bytes does (with
        // room for a loaded CI machine to delay one write).
        try await withServer({ _ in .ok(body).trickled(bytesPerWrite: 100, every: .milliseconds(100)) }) { server in
            let (data, _) = try await Session(configuration: configuration).data(for: request(server.baseURL + "/t"))
            #expect(fingerprint(data) == fingerprint(body))
        }
    }

    @Test func resourceTimeoutEndsALongTransfer() async throws {
        var configuration = SessionConfiguration.default
        configuration.resourceTimeout = .milliseconds(300)
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(bytes(100_000)).trickled(bytesPerWrite: 100, every: .milliseconds(20)) }) { server in
            let task = Session(configuration: configuration).downloadTask(with: request(server.baseURL + "/t"), destination: .directory(dir))
            #expect(await task.outcome() == SessionError.resourceTimedOut)
        }
    }

    @Test func oversizedHeadersAreRefused() async throws {
        try await withServer({ _ in .oversizedHeaders(bytes: 1 << 20) }) { server in
            await #expect(throws: SessionError.headersTooLarge) {
                _ = try await Session().data(for: request(server.baseURL + "/h"))
            }
        }
    }

    @Test func shortBodyForContentLengthIsAnError() async throws {
        try await withServer({ _ in .ok(bytes(10)).withHeader("Content-Length", "20").closingConnection() }) { server in
            await #expect(throws: SessionError.connectionClosed) {
                _ = try await Session().data(for: request(server.baseURL + "/short"))
            }
        }
    }

    @Test func cancelStopsARunningDownloadAndKeepsThePart() async throws {
        let dir = try makeTemporaryDirectory()
        // The body stalls after 10 kB, so the cancel always lands mid-body.
        try await withServer({ _ in .ok(bytes(1_000_000)).stalling(afterBodyBytes: 10_000) }) { server in
            let delegate = RecordingDelegate()
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/c.bin"), destination: .directory(dir))
            task.resume()
            while task.countOfBytesReceived == 0 { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            #expect(await task.outcome() == SessionError.cancelled)
            #expect(task.state == .completed)
            #expect(delegate.log.last == "complete cancelled")
        }
        #expect(files(in: dir) == ["c.bin.part"])
    }

    @Test func suspendedTaskCancelledBeforeResume() async throws {
        let task = Session().downloadTask(with: request("http://127.0.0.1:9/x"), destination: .directory("/tmp"))
        #expect(task.state == .suspended)
        task.cancel()
        #expect(await task.outcome() == SessionError.cancelled)
    }

    @Test func responseCancelledByTheDelegateWritesNothing() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .ok(Array("a file".utf8)) }) { server in
            let delegate = RecordingDelegate(cancelResponses: true)
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/wanted"), destination: .directory(dir))
            #expect(await task.outcome() == SessionError.cancelled)
            #expect(task.response?.statusCode == 200)
            #expect(delegate.log == ["response 200", "complete cancelled"])
        }
        #expect(files(in: dir).isEmpty)
    }

    @Test func destinationErrorsAreFileIOErrors() async throws {
        let dir = try makeTemporaryDirectory()
        try Data("file".utf8).write(to: URL(fileURLWithPath: dir + "/plain"))
        try await withServer({ _ in .text("x") }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/a"), destination: .directory(dir + "/plain/sub"))
            let error = await task.outcome()
            #expect(error?.category == .fileIO)
        }
    }
}
