#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// A task's state from creation to completion: every state × every event.
@Suite("Task lifecycle (pure)")
struct TaskLifecycleTests {
    enum Event: Sendable, CustomStringConvertible {
        case resume
        case cancel
        case ended(SessionError?)

        var description: String {
            switch self {
            case .resume: "resume"
            case .cancel: "cancel"
            case .ended(let error): "ended(\(error.map { "\($0.code)" } ?? "ok"))"
            }
        }
    }

    static let reason = SessionError.cancelled.with("stopped by the user")
    static let failure = SessionError.connectionClosed.with("reset")

    static func apply(_ event: Event, to lifecycle: inout TaskLifecycle) -> String {
        switch event {
        case .resume:
            return lifecycle.resume() == .start ? "start" : "none"
        case .cancel:
            switch lifecycle.cancel(reason) {
            case .completeNow(let error): return "completeNow(\(error.code))"
            case .stopTransfer: return "stopTransfer"
            case .none: return "none"
            }
        case .ended(let error):
            guard let final = lifecycle.transferEnded(error) else { return "already completed" }
            return "final(\(final.map { "\($0.code)" } ?? "ok"))"
        }
    }

    static func label(_ lifecycle: TaskLifecycle) -> String {
        switch lifecycle.state {
        case .suspended: "suspended"
        case .running: "running"
        case .canceling(let reason): "canceling(\(reason.code))"
        case .completed(let error): "completed(\(error.map { "\($0.code)" } ?? "ok"))"
        }
    }

    enum Start: String, CaseIterable, Sendable {
        case suspended, running, cancelingSuspended, cancelingRunning, succeeded, failed, cancelled

        var events: [Event] {
            switch self {
            case .suspended: []
            case .running: [.resume]
            case .cancelingSuspended: [.cancel]
            case .cancelingRunning: [.resume, .cancel]
            case .succeeded: [.resume, .ended(nil)]
            case .failed: [.resume, .ended(TaskLifecycleTests.failure)]
            case .cancelled: [.resume, .cancel, .ended(TaskLifecycleTests.failure)]
            }
        }

        var lifecycle: TaskLifecycle {
            var lifecycle = TaskLifecycle()
            for event in events { _ = TaskLifecycleTests.apply(event, to: &lifecycle) }
            return lifecycle
        }
    }

    typealias Transition = MachineTransition<Start, Event>

    static func t(_ start: Start, _ event: Event, _ action: String, _ after: String) -> Transition {
        Transition(start: start, event: event, action: action, after: after)
    }

    static let transitions: [Transition] = [
        t(.suspended, .resume, "start", "running"),
        t(.suspended, .cancel, "completeNow(cancelled)", "canceling(cancelled)"),
        t(.suspended, .ended(nil), "final(ok)", "completed(ok)"),
        t(.suspended, .ended(failure), "final(connectionClosed)", "completed(connectionClosed)"),

        t(.running, .resume, "none", "running"),
        t(.running, .cancel, "stopTransfer", "canceling(cancelled)"),
        t(.running, .ended(nil), "final(ok)", "completed(ok)"),
        t(.running, .ended(failure), "final(connectionClosed)", "completed(connectionClosed)"),

        // A cancelled task never starts, and ends with the cancellation whatever the transfer said.
        t(.cancelingSuspended, .resume, "none", "canceling(cancelled)"),
        t(.cancelingSuspended, .cancel, "none", "canceling(cancelled)"),
        t(.cancelingSuspended, .ended(reason), "final(cancelled)", "completed(cancelled)"),
        t(.cancelingRunning, .resume, "none", "canceling(cancelled)"),
        t(.cancelingRunning, .cancel, "none", "canceling(cancelled)"),
        t(.cancelingRunning, .ended(nil), "final(cancelled)", "completed(cancelled)"),
        t(.cancelingRunning, .ended(failure), "final(cancelled)", "completed(cancelled)"),

        // Completed is final.
        t(.succeeded, .resume, "none", "completed(ok)"),
        t(.succeeded, .cancel, "none", "completed(ok)"),
        t(.succeeded, .ended(failure), "already completed", "completed(ok)"),
        t(.failed, .resume, "none", "completed(connectionClosed)"),
        t(.failed, .cancel, "none", "completed(connectionClosed)"),
        t(.failed, .ended(nil), "already completed", "completed(connectionClosed)"),
        t(.cancelled, .resume, "none", "completed(cancelled)"),
        t(.cancelled, .cancel, "none", "completed(cancelled)"),
        t(.cancelled, .ended(nil), "already completed", "completed(cancelled)"),
    ]

    @Test(arguments: transitions)
    func transition(_ c: Transition) {
        var lifecycle = c.start.lifecycle
        #expect(Self.apply(c.event, to: &lifecycle) == c.action)
        #expect(Self.label(lifecycle) == c.after)
    }

    @Test("every state has a row for every event")
    func tableIsComplete() {
        for start in Start.allCases {
            let events = Set(Self.transitions.filter { $0.start == start }.map { "\($0.event)".prefix(5) })
            #expect(events.isSuperset(of: ["resum", "cance", "ended"]), "\(start.rawValue): \(events)")
        }
    }

    @Test("public state, completion and cancellation follow the state", arguments: Start.allCases)
    func views(_ start: Start) {
        let lifecycle = start.lifecycle
        let expected: [Start: SessionTask.State] = [
            .suspended: .suspended, .running: .running, .cancelingSuspended: .canceling, .cancelingRunning: .canceling,
            .succeeded: .completed, .failed: .completed, .cancelled: .completed,
        ]
        #expect(lifecycle.publicState == expected[start])
        #expect(lifecycle.isCompleted == [.succeeded, .failed, .cancelled].contains(start))
        #expect((lifecycle.cancellation != nil) == [.cancelingSuspended, .cancelingRunning].contains(start))
        #expect(lifecycle.cancellation?.message == (lifecycle.cancellation == nil ? nil : Self.reason.message))
    }

    @Test("a cancellation's final error carries the stopped transfer's resume data and URL")
    func cancellationCarriesResumeData() {
        var lifecycle = TaskLifecycle()
        _ = lifecycle.resume()
        _ = lifecycle.cancel(Self.reason)
        var stopped = Self.failure.at(URL(string: "http://h.example/f")!)
        stopped.resumeData = ResumeData(originalURL: "http://h.example/f", finalURL: "http://h.example/f", etag: nil, lastModified: nil,
                                        expectedLength: 10, bytesOnDisk: 5, partPath: "/d/f.part", finalPath: "/d/f")
        let final = lifecycle.transferEnded(stopped) ?? nil
        #expect(final == .cancelled)
        #expect(final?.message == Self.reason.message)
        #expect(final?.resumeData?.bytesOnDisk == 5)
        #expect(final?.url?.absoluteString == "http://h.example/f")
    }

    @Test("a reason's own resume data and URL win over the transfer's")
    func reasonKeepsItsOwn() {
        var reason = Self.reason.at(URL(string: "http://mine.example/")!)
        reason.resumeData = ResumeData(originalURL: "http://mine.example/", finalURL: "http://mine.example/", etag: nil,
                                       lastModified: nil, expectedLength: nil, bytesOnDisk: 1, partPath: "", finalPath: "")
        var other = Self.failure.at(URL(string: "http://other.example/")!)
        other.resumeData = ResumeData(originalURL: "http://other.example/", finalURL: "http://other.example/", etag: nil,
                                      lastModified: nil, expectedLength: nil, bytesOnDisk: 2, partPath: "", finalPath: "")
        let carried = reason.carryingResumeData(of: other)
        #expect(carried.resumeData?.bytesOnDisk == 1)
        #expect(carried.url?.host == "mine.example")
    }
}
