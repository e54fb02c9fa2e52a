import Foundation
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// A delegate that takes its events at once (``ImmediateEventDelegate``): the same events in the
/// same order as an async delegate hears, one call at a time, on the emitting thread, and task
/// methods callable from inside.
@Suite("Events delivered at once to an ImmediateEventDelegate")
struct ImmediateEventDelegateTests {
    static let source = randomBytes(600_000, seed: 0x1EE7)

    /// Records the events' names; `didEmit` (the async form) must never be called by a session.
    final class Recorder: ImmediateEventDelegate {
        struct State {
            var names: [String] = []
            var asyncCalls = 0
            var inside = 0
            var overlaps = 0
            var offLoop = 0
            var totals: [Int64] = []
        }
        let state = Mutex(State())
        let onEvent: @Sendable (SessionTask, TaskEvent) -> Void

        init(onEvent: @escaping @Sendable (SessionTask, TaskEvent) -> Void = { _, _ in }) { self.onEvent = onEvent }

        func task(_ task: SessionTask, didEmitNow event: TaskEvent) {
            let onLoop = task.executor.map { $0.eventLoop.inEventLoop } ?? true
            state.withLock { s in
                s.inside += 1
                if s.inside > 1 { s.overlaps += 1 }
                if !onLoop { s.offLoop += 1 }
                s.names.append(LibraryContractTests.OnEvent.name(event))
                if case .wroteData(_, let total, _) = event { s.totals.append(total) }
            }
            // Widens the window in which a second thread's call would overlap this one.
            usleep(200)
            onEvent(task, event)
            state.withLock { $0.inside -= 1 }
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            state.withLock { $0.asyncCalls += 1 }
        }
    }

    /// The async delegate of the same events, for comparison.
    final class AsyncRecorder: SessionDelegate {
        let names = Mutex<[String]>([])
        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            names.withLock { $0.append(LibraryContractTests.OnEvent.name(event)) }
        }
    }

    /// Progress is coalesced differently when the delegate is slow, so runs of `wrote` count as one.
    static func shape(_ names: [String]) -> [String] {
        names.reduce(into: []) { out, name in if !(name == "wrote" && out.last == "wrote") { out.append(name) } }
    }

    @Test(arguments: [SessionThreading.eventLoop, .concurrent])
    func theSameEventsInTheSameOrderAsAnAsyncDelegate(_ threading: SessionThreading) async throws {
        let dir = try makeTemporaryDirectory()
        let immediate = Recorder()
        let later = AsyncRecorder()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"i1\"").trickled(bytesPerWrite: 100_000, every: .milliseconds(1))
        }) { server in
            for (name, delegate) in [("a.bin", immediate as any SessionDelegate), ("b.bin", later)] {
                let session = Session(delegate: delegate, threading: threading)
                let task = session.downloadTask(with: request(server.baseURL + "/" + name), destination: .directory(dir))
                #expect(await task.outcome() == nil)
            }
        }
        let state = immediate.state.withLock { $0 }
        // `completion()` returned: `completed` was delivered before it did.
        #expect(state.names.last == "completed ok")
        #expect(Self.shape(state.names) == Self.shape(later.names.withLock { $0 }.map { $0.replacingOccurrences(of: "b.bin", with: "a.bin") }))
        #expect(Self.shape(state.names) == ["response 200", "created a.bin.part", "wrote", "finished a.bin", "completed ok"])
        #expect(state.asyncCalls == 0, "the session called the async form")
        #expect(state.totals.last == Int64(Self.source.count))
        if threading == .eventLoop { #expect(state.offLoop == 0, "an event was delivered off the task's event loop") }
        #expect(files(in: dir) == ["a.bin", "b.bin"])
    }

    /// Segments on several connections (and loops) emit progress from several threads: the
    /// calls still come one at a time, and the totals never go backwards.
    @Test func progressFromSeveralConnectionsComesOneCallAtATime() async throws {
        let dir = try makeTemporaryDirectory()
        let recorder = Recorder()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"i2\"").trickled(bytesPerWrite: 20_000, every: .milliseconds(2))
        }) { server in
            var configuration = SessionConfiguration.default
            configuration.segmentsPerDownload = 4
            configuration.minimumSegmentBytes = 64 * 1024
            let session = Session(configuration: configuration, delegate: recorder, threading: .eventLoop)
            let (path, _) = try await session.download(request(server.baseURL + "/s.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            #expect(server.requests.filter { $0.header("Range") != nil }.count >= 2, "the download really was segmented")
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.overlaps == 0, "calls overlapped \(state.overlaps) times")
        #expect(state.totals == state.totals.sorted(), "totals went backwards: \(state.totals)")
        #expect(state.totals.last == Int64(Self.source.count))
    }

    /// `cancel()` from inside the call stops the task (no deadlock on the emitting thread), and
    /// the task's own completion can be awaited from a task started there.
    @Test func cancellingFromInsideTheCallStopsTheTask() async throws {
        let dir = try makeTemporaryDirectory()
        let awaited = Mutex<Task<SessionError?, Never>?>(nil)
        let recorder = Recorder { task, event in
            guard case .wroteData = event, awaited.withLock({ $0 == nil }) else { return }
            awaited.withLock { $0 = Task { await task.outcome() } }
            task.cancel()
        }
        let gate = BodyGate()
        gate.open(to: 200_000)
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"i3\"").trickled(bytesPerWrite: 50_000, every: .milliseconds(1), gate: gate)
        }) { server in
            let task = Session(delegate: recorder).downloadTask(with: request(server.baseURL + "/c.bin"), destination: .directory(dir))
            let error = await task.outcome()
            gate.openFully()
            #expect(error == SessionError.cancelled)
        }
        let fromInside = try #require(awaited.withLock { $0 })
        #expect(await fromInside.value == SessionError.cancelled)
        #expect(recorder.state.withLock { $0.names.last } == "completed cancelled")
    }
}
