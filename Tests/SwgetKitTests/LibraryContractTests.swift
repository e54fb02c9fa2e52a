import Foundation
import Synchronization
import Testing
import SwgetKit
import SwgetTestSupport

/// What an app developer relies on (issue 12): task methods called from inside callbacks, Swift
/// task cancellation reaching the connection, resume data that works from anywhere, the event
/// contract, and error statuses as errors of download tasks.
@Suite("SwgetKit's contract with app developers")
struct LibraryContractTests {
    static let source = bytes(3_000_000, seed: 41)

    /// A delegate that runs `action` once, on the first event matching `when`.
    final class OnEvent: SessionDelegate {
        let when: @Sendable (TaskEvent) -> Bool
        let action: @Sendable (SessionTask) async -> Void
        let fired = Mutex(false)
        let events = Mutex<[String]>([])

        init(when: @escaping @Sendable (TaskEvent) -> Bool, action: @escaping @Sendable (SessionTask) async -> Void) {
            self.when = when
            self.action = action
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            events.withLock { $0.append(Self.name(event)) }
            guard when(event), fired.withLock({ let was = $0; $0 = true; return !was }) else { return }
            await action(task)
        }

        static func name(_ event: TaskEvent) -> String {
            switch event {
            case .redirected: "redirected"
            case .response(let response): "response \(response.statusCode)"
            case .data: "data"
            case .destinationCreated(let url): "created \(url.lastPathComponent)"
            case .resumed(let offset, _): "resumed \(offset)"
            case .restarted: "restarted"
            case .wroteData: "wrote"
            case .willRetry(_, let error, let attempt): "retry \(attempt) \(error.message)"
            case .warning: "warning"
            case .proxyTunnel: "tunnel"
            case .sentBodyData: "sent"
            case .tlsEstablished: "tls"
            case .debug: "debug"
            case .finishedDownloading(let url): "finished \(url.lastPathComponent)"
            case .completed(let error): "completed \(error.map { "\($0.category)" } ?? "ok")"
            }
        }
    }

    @Test func cancelProducingResumeDataFromInsideAnEventReturns() async throws {
        let dir = try makeTemporaryDirectory()
        let produced = Mutex<ResumeData?>(nil)
        let delegate = OnEvent(when: { event in
            if case .wroteData(_, let total, _) = event { return total >= 400_000 }
            return false
        }, action: { task in
            let data = await (task as? DownloadTask)?.cancelProducingResumeData()
            produced.withLock { $0 = data }
        })
        // The body stops at 600 kB until the test is over: the cancel always lands mid-body.
        let gate = BodyGate()
        gate.open(to: 600_000)
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"c1\"").trickled(bytesPerWrite: 50_000, every: .milliseconds(1), gate: gate)
        }) { server in
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/big.bin"), destination: .directory(dir))
            let error = await task.outcome()
            gate.openFully()
            #expect(error == SessionError.cancelled)
            #expect(task.state == .completed)
            let data = try #require(produced.withLock { $0 })
            #expect(data.bytesOnDisk >= 400_000)
            #expect(error?.resumeData?.bytesOnDisk == data.bytesOnDisk)
        }
    }

    @Test func cancelProducingResumeDataInsideADecisionAnswersAtOnce() async throws {
        let dir = try makeTemporaryDirectory()
        final class Decider: SessionDelegate {
            let produced = Mutex<ResumeData??>(nil)
            func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
                let data = await (task as? DownloadTask)?.cancelProducingResumeData()
                produced.withLock { $0 = .some(data) }
                return .allow
            }
        }
        let delegate = Decider()
        try await withServer({ _ in .ok(bytes(1000)) }) { server in
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/x.bin"), destination: .directory(dir))
            #expect(await task.outcome() == SessionError.cancelled)
            #expect(delegate.produced.withLock { $0 } != nil, "the decision returned")
        }
        #expect(files(in: dir).isEmpty)
    }

    @Test func completionAwaitedInsideAnEventReturnsWhenTheTransferEnds() async throws {
        let dir = try makeTemporaryDirectory()
        let seen = Mutex<Bool?>(nil)
        let delegate = OnEvent(when: { if case .response = $0 { return true } else { return false } }, action: { task in
            let error = await task.outcome()
            seen.withLock { $0 = error == nil }
        })
        try await withServer({ _ in .ok(bytes(200_000)) }) { server in
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/y.bin"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
        }
        #expect(seen.withLock { $0 } == true)
    }

    @Test func completionAwaitedInsideItsOwnDecisionIsRefusedNotDeadlocked() async throws {
        final class Waiter: SessionDelegate {
            let answer = Mutex<SessionError??>(nil)
            func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
                let error = await task.outcome()
                answer.withLock { $0 = .some(error) }
                return .allow
            }
        }
        let delegate = Waiter()
        try await withServer({ _ in .text("hello") }) { server in
            let task = Session(delegate: delegate).dataTask(with: request(server.baseURL + "/"))
            #expect(await task.outcome() == nil)
        }
        #expect(delegate.answer.withLock { $0 } == .some(SessionError.misuse))
    }

    @Test func cancellingTheSwiftTaskStopsDataForAndDownload() async throws {
        let dir = try makeTemporaryDirectory()
        let gate = BodyGate()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"s1\"").trickled(bytesPerWrite: 100_000, every: .milliseconds(1), gate: gate)
        }) { server in
            gate.open(to: 300_000)
            let session = Session()
            let data = Task { try await session.data(for: request(server.baseURL + "/a.bin")) }
            let download = Task { try await session.download(request(server.baseURL + "/b.bin"), to: .directory(dir)) }
            while server.requests.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            data.cancel()
            download.cancel()
            let dataResult = await data.result
            guard case .failure(let dataFailure) = dataResult, let dataError = dataFailure as? SessionError else {
                Issue.record("data(for:) finished although its Swift task was cancelled")
                return
            }
            #expect(dataError == SessionError.cancelled)
            let downloadResult = await download.result
            guard case .failure(let failure) = downloadResult, let error = failure as? SessionError else {
                Issue.record("the download finished although its Swift task was cancelled")
                return
            }
            #expect(error == SessionError.cancelled)
            #expect(error.resumeData != nil || files(in: dir).isEmpty, "bytes kept come with resume data")
            gate.openFully()
        }
    }

    @Test func resumeDataHoldsAbsolutePathsAndHonoursANewDestination() async throws {
        let base = try makeTemporaryDirectory()
        let moved = try makeTemporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(base)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let counter = Counter()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"m1\"")
            return counter.next() == 1 ? response.stalling(afterBodyBytes: 500_000) : response
        }) { server in
            let session = Session()
            let task = session.downloadTask(with: request(server.baseURL + "/m.bin"), destination: .directory("downloads"))
            task.resume()
            while task.countOfBytesReceived < 500_000 { try await Task.sleep(for: .milliseconds(5)) }
            let data = try #require(await task.cancelProducingResumeData())
            #expect(data.partPath == base + "/downloads/m.bin.part")
            #expect(data.finalPath == base + "/downloads/m.bin")
            // Another working directory, and another destination.
            _ = FileManager.default.changeCurrentDirectoryPath(moved)
            let events = Mutex<[String]>([])
            let resumed = session.downloadTask(withResumeData: data, destination: .directory(moved))
            let stream = resumed.events
            let listening = Task { for await event in stream { events.withLock { $0.append(OnEvent.name(event)) } } }
            #expect(await resumed.outcome() == nil)
            await listening.value
            #expect(resumed.location?.path == moved + "/m.bin")
            #expect(events.withLock { $0 }.first == "created m.bin.part", "a task made from resume data names its file too")
            #expect(events.withLock { $0 }.contains("resumed 500000"))
        }
        #expect(fingerprint(contents(moved + "/m.bin")) == fingerprint(Self.source))
        #expect(files(in: base + "/downloads").isEmpty)
    }

    /// Resume data stores the URL's password masked; a task made from it never sends the mask:
    /// the delegate's credential answers the challenge.
    @Test func resumeDataNeverSendsTheMaskedPassword() async throws {
        let dir = try makeTemporaryDirectory()
        let counter = Counter()
        let authorizations = Mutex<[String]>([])
        try await withServer({ request in
            let authorization = request.header("Authorization") ?? "-"
            authorizations.withLock { $0.append(authorization) }
            guard authorization == basic("u", "s3cret") else {
                return TestResponse.status(401).withHeader("WWW-Authenticate", "Basic realm=\"r\"")
            }
            let response = TestResponse.serving(Self.source, to: request, etag: "\"p1\"")
            return counter.next() == 1 ? response.stalling(afterBodyBytes: 300_000) : response
        }) { server in
            let url = server.baseURL.replacingOccurrences(of: "http://", with: "http://u:s3cret@") + "/p.bin"
            // Ephemeral sessions: no credential is remembered from one to the next.
            let task = Session(configuration: .ephemeral).downloadTask(with: request(url), destination: .directory(dir))
            task.resume()
            while task.countOfBytesReceived < 300_000 { try await Task.sleep(for: .milliseconds(5)) }
            let data = try #require(await task.cancelProducingResumeData())
            #expect(!data.originalURL.contains("s3cret"))
            // Without anyone to answer, the challenge fails; the mask is not tried as a password.
            let unanswered = Session(configuration: .ephemeral).downloadTask(withResumeData: data)
            let failure = await unanswered.outcome()
            #expect(failure?.category == .authentication, "\(String(describing: failure))")
            let delegate = AnsweringDelegate(Credential(user: "u", password: "s3cret", persistence: .forSession))
            let resumed = Session(configuration: .ephemeral, delegate: delegate).downloadTask(withResumeData: data)
            #expect(await resumed.outcome() == nil)
        }
        #expect(!authorizations.withLock { $0 }.contains(basic("u", "***")))
        #expect(fingerprint(contents(dir + "/p.bin")) == fingerprint(Self.source))
    }

    /// Answers every authentication challenge with one credential.
    final class AnsweringDelegate: SessionDelegate {
        let credential: Credential
        init(_ credential: Credential) { self.credential = credential }
        func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> AuthChallengeDisposition {
            .useCredential(credential)
        }
    }

    @Test func aRestartFromZeroIsAnEvent() async throws {
        let dir = try makeTemporaryDirectory()
        let counter = Counter()
        try await withServer({ request in
            // The first answer is cut; the second ignores the range (a 200 with the whole file).
            counter.next() == 1 ? TestResponse.ok(Self.source, headers: [("ETag", "\"z1\"")]).closing(afterBodyBytes: 200_000)
                                : TestResponse.ok(Self.source, headers: [("ETag", "\"z1\"")])
        }) { server in
            var configuration = SessionConfiguration.default
            configuration.retryPolicy = RetryPolicy()
            configuration.retryPolicy.initialDelay = .milliseconds(10)
            let session = Session(configuration: configuration)
            let task = session.downloadTask(with: request(server.baseURL + "/z.bin"), destination: .directory(dir))
            let stream = task.events
            let names = Task { var all: [String] = []; for await event in stream { all.append(OnEvent.name(event)) }; return all }
            #expect(await task.outcome() == nil)
            let all = await names.value
            #expect(all.contains { $0.hasPrefix("retry 2") })
            #expect(all.contains("restarted"), "\(all)")
            #expect(all.last == "completed ok")
        }
        #expect(fingerprint(contents(dir + "/z.bin")) == fingerprint(Self.source))
    }

    @Test func anErrorStatusFailsADownloadWithTheResponse() async throws {
        let dir = try makeTemporaryDirectory()
        let existing = dir + "/kept.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: existing))
        try await withServer({ _ in .status(404, body: Array("not here".utf8)) }) { server in
            let session = Session()
            let error = await #expect(throws: SessionError.self) {
                try await session.download(request(server.baseURL + "/kept.txt"), to: .file(existing))
            }
            #expect(error?.category == .httpStatus)
            #expect(error?.response?.statusCode == 404)
            #expect(error?.url?.path == "/kept.txt")
            var keeping = DownloadDestination.directory(dir + "/pages")
            keeping.keepsErrorResponses = true
            let kept = await #expect(throws: SessionError.self) {
                try await session.download(request(server.baseURL + "/page.html"), to: keeping)
            }
            #expect(kept?.category == .httpStatus)
        }
        #expect(contents(existing) == Array("mine".utf8))
        #expect(contents(dir + "/pages/page.html") == Array("not here".utf8))
    }

    /// Without a delegate or a subscriber no event is queued (no delivery task either), yet a
    /// subscriber that comes after the end still gets `completed`.
    @Test func aTaskNobodyListensToStillEndsWithCompletedForALateSubscriber() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ _ in .text("quiet") }) { server in
            let task = Session().downloadTask(with: request(server.baseURL + "/q.txt"), destination: .directory(dir))
            #expect(await task.outcome() == nil)
            var names: [String] = []
            for await event in task.events { names.append(OnEvent.name(event)) }
            #expect(names == ["completed ok"])
        }
        #expect(contents(dir + "/q.txt") == Array("quiet".utf8))
    }

    @Test func backgroundRetriesAreReportedAsEvents() async throws {
        // A port nobody listens on: every attempt is refused.
        let port = try await TestServer.start { _ in .text("x") }
        let url = port.baseURL + "/gone"
        try await port.stop()
        var configuration = SessionConfiguration.background(identifier: "contract-\(UUID().uuidString)")
        configuration.retryPolicy.maxAttempts = 3
        configuration.retryPolicy.initialDelay = .milliseconds(10)
        configuration.retryPolicy.maxDelay = .milliseconds(20)
        let dir = try makeTemporaryDirectory()
        let task = Session(configuration: configuration).downloadTask(with: request(url), destination: .directory(dir))
        let stream = task.events
        let collecting = Task { var all: [String] = []; for await event in stream { all.append(OnEvent.name(event)) }; return all }
        let error = await task.outcome()
        #expect(error?.category == .network)
        #expect(error?.underlyingErrno == ECONNREFUSED)
        let names = await collecting.value.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(names == ["retry 2", "retry 3", "completed network"])
    }
}

/// Counts calls from the server's threads.
final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
