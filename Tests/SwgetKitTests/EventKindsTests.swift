import Foundation
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// A delegate hears only the kinds of events it names (``SessionDelegate/eventKinds``); the
/// task's subscribers still hear every event, and decisions are asked whatever the kinds.
@Suite("Event kinds a delegate hears")
struct EventKindsTests {
    static let body = randomBytes(200_000, seed: 0x7E57)

    /// Records the events it hears and the response decisions it is asked.
    final class Picky: SessionDelegate {
        let eventKinds: TaskEvent.Kinds
        let heard = Mutex<[String]>([])
        let decisions = Mutex(0)

        init(_ kinds: TaskEvent.Kinds) { eventKinds = kinds }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            heard.withLock { $0.append(LibraryContractTests.OnEvent.name(event)) }
        }

        func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
            decisions.withLock { $0 += 1 }
            return .allow
        }
    }

    /// The same, taking its events at once.
    final class PickyNow: ImmediateEventDelegate {
        let eventKinds: TaskEvent.Kinds
        let heard = Mutex<[String]>([])
        let decisions = Mutex(0)

        init(_ kinds: TaskEvent.Kinds) { eventKinds = kinds }

        func task(_ task: SessionTask, didEmitNow event: TaskEvent) {
            heard.withLock { $0.append(LibraryContractTests.OnEvent.name(event)) }
        }

        func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
            decisions.withLock { $0 += 1 }
            return .allow
        }
    }

    @Test func eachKindOfEventHasItsOwnBit() {
        let kinds: [TaskEvent.Kinds] = [.sentBodyData, .redirected, .tlsEstablished, .response, .data, .destinationCreated,
                                        .resumed, .restarted, .wroteData, .willRetry, .proxyTunnel, .warning,
                                        .finishedDownloading, .debug, .completed]
        #expect(Set(kinds.map(\.rawValue)).count == kinds.count)
        #expect(kinds.reduce(TaskEvent.Kinds()) { $0.union($1) } == .all)
        #expect(TaskEvent.completed(nil).kind == .completed)
        #expect(TaskEvent.wroteData(bytesWritten: 1, totalBytesWritten: 1, totalBytesExpectedToWrite: nil).kind == .wroteData)
        #expect(TaskEvent.destinationCreated(URL(filePath: "/x")).kind == .destinationCreated)
    }

    @Test(arguments: [false, true])
    func aDelegateHearsOnlyItsKindsWhileASubscriberHearsEverything(_ immediate: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let kinds: TaskEvent.Kinds = [.response, .completed]
        let picky = Picky(kinds), pickyNow = PickyNow(kinds)
        let delegate: any SessionDelegate = immediate ? pickyNow : picky
        var all: [String] = []
        try await withServer({ _ in .ok(Self.body) }) { server in
            let task = Session(delegate: delegate).downloadTask(with: request(server.baseURL + "/k.bin"), destination: .directory(dir))
            let events = task.events
            let listening = Task {
                var names: [String] = []
                for await event in events { names.append(LibraryContractTests.OnEvent.name(event)) }
                return names
            }
            #expect(await task.outcome() == nil)
            all = await listening.value
        }
        let heard = immediate ? pickyNow.heard.withLock { $0 } : picky.heard.withLock { $0 }
        #expect(heard == ["response 200", "completed ok"])
        #expect(all.first == "response 200" && all.last == "completed ok")
        #expect(all.contains { $0.hasPrefix("created") } && all.contains("finished k.bin") && all.contains("wrote"), "\(all)")
        #expect((immediate ? pickyNow.decisions.withLock { $0 } : picky.decisions.withLock { $0 }) == 1)
    }

    @Test(arguments: [false, true])
    func aDelegateThatHearsNothingIsStillAskedItsDecisions(_ immediate: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let picky = Picky([]), pickyNow = PickyNow([])
        let delegate: any SessionDelegate = immediate ? pickyNow : picky
        try await withServer({ _ in .ok(Self.body) }) { server in
            let session = Session(delegate: delegate)
            for name in ["a.bin", "b.bin"] {
                let task = session.downloadTask(with: request(server.baseURL + "/" + name), destination: .directory(dir))
                #expect(await task.outcome() == nil)
                // A subscriber that comes after the end still gets `completed`.
                var late: [String] = []
                for await event in task.events { late.append(LibraryContractTests.OnEvent.name(event)) }
                #expect(late == ["completed ok"])
            }
        }
        #expect((immediate ? pickyNow.heard.withLock { $0 } : picky.heard.withLock { $0 }).isEmpty)
        #expect((immediate ? pickyNow.decisions.withLock { $0 } : picky.decisions.withLock { $0 }) == 2)
        #expect(files(in: dir) == ["a.bin", "b.bin"])
    }
}
