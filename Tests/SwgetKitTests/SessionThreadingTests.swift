import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Where a session runs its transfers and calls its delegate (``SessionThreading``).
@Suite("Session threading: the global executor or the session's event loop")
struct SessionThreadingTests {
    /// Records, for every callback, whether it ran on the thread of the task's own event loop.
    final class LoopWatcher: SessionDelegate {
        let onLoop = Mutex<[String: [Bool]]>([:])

        func note(_ name: String, _ task: SessionTask) {
            let here = task.executor?.eventLoop.inEventLoop ?? false
            onLoop.withLock { $0[name, default: []].append(here) }
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            if case .completed = event { note("completed", task) }
        }

        func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
            note("response", task)
            return .allow
        }
    }

    @Test(arguments: [(SessionThreading.eventLoop, true), (.concurrent, false)])
    func callbacksRunWhereTheThreadingSays(_ threading: SessionThreading, _ expectedOnLoop: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let watcher = LoopWatcher()
        try await withServer({ request in .ok(bytes(50_000)) }) { server in
            let session = Session(delegate: watcher, threading: threading)
            let tasks = (0..<4).map { session.downloadTask(with: request(server.baseURL + "/f\($0).bin"), destination: .directory(dir)) }
            for task in tasks { task.resume() }
            for task in tasks { #expect(await task.outcome() == nil) }
            // Created outside the loops, the tasks take them in turn.
            let loops = Set(tasks.compactMap { $0.executor.map { ObjectIdentifier($0) } })
            #expect(loops.count == (expectedOnLoop ? min(4, session.taskExecutors.count) : 0))
        }
        let seen = watcher.onLoop.withLock { $0 }
        #expect(seen["response"] == Array(repeating: expectedOnLoop, count: 4), "\(seen)")
        #expect(seen["completed"] == Array(repeating: expectedOnLoop, count: 4), "\(seen)")
        #expect(files(in: dir) == ["f0.bin", "f1.bin", "f2.bin", "f3.bin"])
    }

    /// A task created on one of the session's loops stays there, and so does its connection.
    @Test func aTaskCreatedOnALoopRunsThere() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in .ok(bytes(1_000)) }) { server in
            let session = Session(threading: .eventLoop)
            let last = try #require(session.taskExecutors.last as? EventLoopExecutor)
            for name in ["a", "b", "c"] {
                let task = await Task(executorPreference: last) {
                    session.downloadTask(with: request(server.baseURL + "/\(name)"), destination: .directory(dir))
                }.value
                #expect(task.executor === last)
                #expect(await task.outcome() == nil)
                #expect(task.metrics.reusedConnection == (name != "a"))
            }
        }
    }

    @Test func theTaskExecutorsAreTheLoopsOnlyWhenAsked() {
        let onLoop = Session(threading: .eventLoop)
        #expect(onLoop.threading == .eventLoop)
        #expect(onLoop.taskExecutors.count == MultiThreadedEventLoopGroup.singleton.makeIterator().map { $0 }.count)
        #expect(onLoop.taskExecutor as? EventLoopExecutor === onLoop.loopExecutors.first)
        #expect(Session().taskExecutor as? EventLoopExecutor == nil)
        #expect(Session().taskExecutors.count == 1)
        #expect(Session().threading == .concurrent)
        #expect("\(SessionThreading.eventLoop)" == "event loop")
    }
}
