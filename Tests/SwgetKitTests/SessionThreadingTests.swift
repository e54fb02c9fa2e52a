import Foundation
import NIOCore
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Where a session runs its transfers and calls its delegate (``SessionThreading``).
@Suite("Session threading: the global executor or the session's event loop")
struct SessionThreadingTests {
    /// Records, for every callback, whether it ran on the session's event loop.
    final class LoopWatcher: SessionDelegate {
        let loop = Mutex<EventLoop?>(nil)
        let onLoop = Mutex<[String: [Bool]]>([:])

        func note(_ name: String) {
            let here = loop.withLock { $0?.inEventLoop ?? false }
            onLoop.withLock { $0[name, default: []].append(here) }
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            if case .completed = event { note("completed") }
        }

        func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
            note("response")
            return .allow
        }
    }

    @Test(arguments: [(SessionThreading.eventLoop, true), (.concurrent, false)])
    func callbacksRunWhereTheThreadingSays(_ threading: SessionThreading, _ expectedOnLoop: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let watcher = LoopWatcher()
        try await withServer({ request in .ok(bytes(50_000)) }) { server in
            let session = Session(delegate: watcher, threading: threading)
            watcher.loop.withLock { $0 = session.executor.eventLoop }
            let tasks = (0..<4).map { session.downloadTask(with: request(server.baseURL + "/f\($0).bin"), destination: .directory(dir)) }
            await withTaskExecutorPreference(session.taskExecutor) {
                for task in tasks { task.resume() }
                for task in tasks { #expect(await task.outcome() == nil) }
            }
        }
        let seen = watcher.onLoop.withLock { $0 }
        #expect(seen["response"] == Array(repeating: expectedOnLoop, count: 4), "\(seen)")
        #expect(seen["completed"] == Array(repeating: expectedOnLoop, count: 4), "\(seen)")
        #expect(files(in: dir) == ["f0.bin", "f1.bin", "f2.bin", "f3.bin"])
    }

    @Test func theTaskExecutorIsTheLoopOnlyWhenAsked() {
        let onLoop = Session(threading: .eventLoop)
        #expect(onLoop.threading == .eventLoop)
        #expect(onLoop.taskExecutor as? EventLoopExecutor === onLoop.executor)
        #expect(Session().taskExecutor as? EventLoopExecutor == nil)
        #expect(Session().threading == .concurrent)
        #expect("\(SessionThreading.eventLoop)" == "event loop")
    }
}
