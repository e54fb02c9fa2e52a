import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// Resume and retry against the in-process server's injected faults: every case ends with a
/// file identical to the source, or a clean failure with the `.part` kept.
@Suite("Resume and retry with injected faults")
struct ResumeTests {
    static let source = bytes(300_000, seed: 42)

    static func fastRetries(_ attempts: Int = 6, background: String? = nil) -> SessionConfiguration {
        var configuration = background.map { SessionConfiguration.background(identifier: $0) } ?? .default
        configuration.retryPolicy = RetryPolicy()
        configuration.retryPolicy.maxAttempts = attempts
        configuration.retryPolicy.initialDelay = .milliseconds(5)
        configuration.retryPolicy.maxDelay = .milliseconds(20)
        configuration.idleReadTimeout = .seconds(5)
        return configuration
    }

    /// Counts requests; the handler decides per request number.
    final class Counter: Sendable {
        let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
    }

    @Test(arguments: [0, 1, 100, 4095, 4096, 65_536, 150_001, 299_999])
    func connectionDropsAreResumed(at cut: Int) async throws {
        let counter = Counter()
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"v1\"")
            return counter.next() == 1 ? response.closing(afterBodyBytes: cut) : response
        }) { server in
            let (path, _) = try await Session(configuration: Self.fastRetries()).download(request(server.baseURL + "/f.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            // Every later request asks for the rest with the validator, never for bytes 0-.
            let later = server.requests.dropFirst()
            #expect(!later.isEmpty)
            for request in later where request.header("Range") != nil {
                #expect(request.header("If-Range") == "\"v1\"")
            }
            if cut > 0 {
                #expect(later.contains { $0.header("Range") == "bytes=\(cut)-" })
            } else {
                #expect(later.allSatisfy { $0.header("Range") == nil })
            }
        }
        #expect(files(in: dir) == ["f.bin"])
    }

    @Test(arguments: [1, 5, 1000, 1004, 1006, 200_000])
    func chunkedBodiesCutAnywhereAreResumed(at cut: Int) async throws {
        let counter = Counter()
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"v1\"")
            return counter.next() == 1 ? response.chunked(1000).closing(afterBodyBytes: cut) : response
        }) { server in
            let (path, _) = try await Session(configuration: Self.fastRetries()).download(request(server.baseURL + "/c.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
        }
    }

    enum Misbehaviour: String, CaseIterable, Sendable {
        case ignoresRange, wrongStart, changedETag, changedLength, weakETagOnly, lastModifiedOnly, stall
    }

    @Test(arguments: Misbehaviour.allCases)
    func resumeAnswersAreJudged(_ misbehaviour: Misbehaviour) async throws {
        let counter = Counter()
        let changed = bytes(300_000, seed: 99)
        let dir = try makeTemporaryDirectory()
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        try await withServer({ request in
            let n = counter.next()
            switch misbehaviour {
            case .ignoresRange:
                return n == 1 ? .ok(Self.source).closing(afterBodyBytes: 1000) : .ok(Self.source)
            case .wrongStart:
                if n == 2 {
                    return .status(206, body: Array(Self.source[0..<5000]), headers: [("Content-Range", "bytes 0-4999/300000"), ("ETag", "\"v1\"")])
                }
                let response = TestResponse.serving(Self.source, to: request, etag: "\"v1\"")
                return n == 1 ? response.closing(afterBodyBytes: 1000) : response
            case .changedETag:
                // The file changes between attempts: the If-Range no longer matches, a 200 comes.
                return n == 1 ? TestResponse.serving(Self.source, to: request, etag: "\"v1\"").closing(afterBodyBytes: 1000)
                              : TestResponse.serving(changed, to: request, etag: "\"v2\"")
            case .changedLength:
                if n == 2 {
                    return .status(206, body: Array(Self.source[1000...]), headers: [("Content-Range", "bytes 1000-299999/400000")])
                }
                let response = TestResponse.serving(Self.source, to: request, etag: "\"v1\"")
                return n == 1 ? response.closing(afterBodyBytes: 1000) : response
            case .weakETagOnly:
                let response = TestResponse.serving(Self.source, to: request, etag: nil).withHeader("ETag", "W/\"weak\"")
                return n == 1 ? response.closing(afterBodyBytes: 1000) : response
            case .lastModifiedOnly:
                var response = TestResponse.serving(Self.source, to: request, etag: nil).withHeader("Last-Modified", modified)
                if request.header("If-Range") != nil && request.header("If-Range") != modified { response = .ok(Self.source) }
                return n == 1 ? response.closing(afterBodyBytes: 1000) : response
            case .stall:
                let response = TestResponse.serving(Self.source, to: request, etag: "\"v1\"")
                return n == 1 ? response.stalling(afterBodyBytes: 70_000) : response
            }
        }) { server in
            var configuration = Self.fastRetries()
            if misbehaviour == .stall { configuration.idleReadTimeout = .seconds(1) }
            let (path, _) = try await Session(configuration: configuration).download(request(server.baseURL + "/x.bin"), to: .directory(dir))
            let expected = misbehaviour == .changedETag ? changed : Self.source
            #expect(fingerprint(contents(path)) == fingerprint(expected), "\(misbehaviour)")
            let ranged = server.requests.dropFirst().first { $0.header("Range") != nil }
            switch misbehaviour {
            case .weakETagOnly:
                #expect(ranged?.header("If-Range") == nil)
                #expect(ranged?.header("Range") == "bytes=1000-")
            case .lastModifiedOnly:
                #expect(ranged?.header("If-Range") == modified)
            default:
                break
            }
        }
        #expect(files(in: dir) == ["x.bin"])
    }

    @Test func cancelProducesResumeDataThatContinuesTheFile() async throws {
        let dir = try makeTemporaryDirectory()
        let delegate = ResumeRecorder()
        let counter = Counter()
        try await withServer({ request in
            // The first answer stalls after 100 kB, so the cancel always lands mid-body.
            let response = TestResponse.serving(Self.source, to: request, etag: "\"r1\"")
            return counter.next() == 1 ? response.stalling(afterBodyBytes: 100_000) : response
        }) { server in
            let session = Session(delegate: delegate)
            let task = session.downloadTask(with: request(server.baseURL + "/r.bin"), destination: .directory(dir))
            task.resume()
            while task.countOfBytesReceived < 100_000 { try await Task.sleep(for: .milliseconds(5)) }
            let data = try #require(await task.cancelProducingResumeData())
            #expect(data.bytesOnDisk == 100_000)
            #expect(data.etag == "\"r1\"")
            #expect(data.expectedLength == 300_000)
            #expect(files(in: dir) == ["r.bin.part"])
            // The resume data survives serialisation, as an app would store it.
            let restored = try #require(ResumeData(serialized: data.serialized()))
            let resumed = session.downloadTask(withResumeData: restored)
            #expect(await resumed.outcome() == nil)
            #expect(resumed.location?.path == dir + "/r.bin")
            #expect(delegate.resumedAt.withLock { $0 } == [data.bytesOnDisk])
            #expect(server.requests.last?.header("Range") == "bytes=\(data.bytesOnDisk)-")
        }
        #expect(fingerprint(contents(dir + "/r.bin")) == fingerprint(Self.source))
        #expect(files(in: dir) == ["r.bin"])
    }

    @Test func failedTaskErrorCarriesResumeData() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"e\"").closing(afterBodyBytes: 12_345) }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/e.bin"), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error == SessionError.connectionClosed)
            let data = try #require(error.resumeData)
            #expect(data.bytesOnDisk == 12_345)
            #expect(data.partPath == dir + "/e.bin.part")
        }
    }

    @Test func backgroundSessionStateSurvivesTheSessionAndIsCleanedUp() async throws {
        let dir = try makeTemporaryDirectory()
        let counter = Counter()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"b\"")
            return counter.next() == 1 ? response.closing(afterBodyBytes: 100_000) : response
        }) { server in
            var first = Self.fastRetries(1, background: "test-bg")
            first.retryPolicy = .none
            let failed = Session(configuration: first).downloadTask(with: request(server.baseURL + "/b.bin"), destination: .directory(dir))
            #expect(await failed.outcome() == SessionError.connectionClosed)
            #expect(files(in: dir) == ["b.bin.part", "b.bin.swget"])
            // A new "process": a new session with the same identifier and request continues.
            let again = Session(configuration: Self.fastRetries(background: "test-bg"))
            let task = again.downloadTask(with: request(server.baseURL + "/b.bin"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            #expect(server.requests.last?.header("Range") == "bytes=100000-")
            // Another identifier would not have adopted it.
        }
        #expect(files(in: dir) == ["b.bin"])
        #expect(fingerprint(contents(dir + "/b.bin")) == fingerprint(Self.source))
    }

    @Test func alreadyCompleteIsRecognisedBy416() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"c\"") }) { server in
            let data = ResumeData(originalURL: server.baseURL + "/done.bin", finalURL: server.baseURL + "/done.bin", etag: "\"c\"",
                                  lastModified: nil, expectedLength: 300_000, bytesOnDisk: 300_000,
                                  partPath: dir + "/done.bin.part", finalPath: dir + "/done.bin")
            try Data(Self.source).write(to: URL(fileURLWithPath: data.partPath))
            let task = Session().downloadTask(withResumeData: data)
            #expect(await task.outcome() == nil)
            #expect(server.requests.count == 1)
        }
        #expect(files(in: dir) == ["done.bin"])
        #expect(fingerprint(contents(dir + "/done.bin")) == fingerprint(Self.source))
    }

    @Test func busyServerIsRetriedHonouringRetryAfterButNotFoundIsNot() async throws {
        let counter = Counter()
        try await withServer({ request in
            if request.path == "/missing" { return .status(404) }
            return counter.next() < 3 ? .status(503, headers: [("Retry-After", "0")]) : .text("finally")
        }) { server in
            let session = Session(configuration: Self.fastRetries())
            let dir = try makeTemporaryDirectory()
            let (path, response) = try await session.download(request(server.baseURL + "/busy"), to: .directory(dir))
            #expect(response.statusCode == 200)
            #expect(contents(path) == Array("finally".utf8))
            let missing = session.downloadTask(with: request(server.baseURL + "/missing"), destination: .directory(dir))
            _ = await missing.outcome()
            #expect(missing.response?.statusCode == 404)
            #expect(server.requests.filter { $0.path == "/missing" }.count == 1)
        }
    }

    @Test func retriesGiveUpAfterTheLimitKeepingThePart() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in TestResponse.serving(Self.source, to: request, etag: "\"g\"").closing(afterBodyBytes: 1000) }) { server in
            let task = Session(configuration: Self.fastRetries(3)).downloadTask(with: request(server.baseURL + "/g.bin"), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .network)
            #expect(error.resumeData?.bytesOnDisk == 3000)
            #expect(server.requests.count == 3)
        }
        #expect(files(in: dir) == ["g.bin.part"])
    }
}

final class ResumeRecorder: SessionDelegate {
    let resumedAt = Mutex<[Int64]>([])
    func task(_ task: SessionTask, didEmit event: TaskEvent) async {
        if case .resumed(let fileOffset, _) = event { resumedAt.withLock { $0.append(fileOffset) } }
    }
}
