import NIOCore
import NIOHTTP1
import Testing
@testable import SwgetKit

/// Every transition of the HTTP/1 connection machine, by tables: each reachable state × each
/// event → the action and the state after it; then the idle read timeout on a fake clock
/// (`NIODeadline.uptimeNanoseconds`, never `.now()`).
@Suite("HTTP/1 connection machine (pure)")
struct HTTP1ConnectionStateMachineTests {
    typealias Machine = HTTP1ConnectionStateMachine

    /// A fixed origin far from zero, so deadlines never underflow.
    static let origin: UInt64 = 1_000_000_000_000
    static func at(_ ms: Int64) -> NIODeadline { .uptimeNanoseconds(origin + UInt64(ms) * 1_000_000) }
    static let head = HTTPResponseHead(version: .http1_1, status: .ok)

    /// An event of the machine (all at time 0 unless it says otherwise).
    enum Event: CustomStringConvertible, Sendable {
        case send, head, body(String), end, attach, satisfied, pause, unpause, inactive, parseError, otherError
        case readComplete, abandon
        case check(ms: Int64, reading: Bool = true)

        /// The event's kind, without its payload.
        var name: String {
            switch self {
            case .send: "send"
            case .head: "head"
            case .body: "body"
            case .end: "end"
            case .attach: "attach"
            case .satisfied: "satisfied"
            case .pause: "pause"
            case .unpause: "unpause"
            case .inactive: "inactive"
            case .parseError: "parseError"
            case .otherError: "otherError"
            case .readComplete: "readComplete"
            case .abandon: "abandon"
            case .check: "check"
            }
        }

        var description: String {
            switch self {
            case .body(let text): "body(\(text))"
            case .check(let ms, let reading): "check(\(ms) ms\(reading ? "" : ", not reading"))"
            default: name
            }
        }
    }

    /// Applies `event` at its time (0 ms for all but checks).
    static func apply(_ event: Event, to machine: inout Machine) -> Machine.Action {
        let now = at(0)
        switch event {
        case .send: return machine.sendRequest(now: now)
        case .head: return machine.headReceived(head, now: now)
        case .body(let text): return machine.bodyPartReceived(ByteBuffer(string: text), now: now)
        case .end: return machine.endReceived(now: now)
        case .attach: return machine.attachSink(now: now)
        case .satisfied: return machine.sinkSatisfied()
        case .pause: return machine.sinkPaused(true, now: now)
        case .unpause: return machine.sinkPaused(false, now: now)
        case .inactive: return machine.channelInactive()
        case .parseError: return machine.errorCaught(SessionError.badResponse.with("parse"), isParseError: true)
        case .otherError: return machine.errorCaught(SessionError.fileIO.with("disk full"), isParseError: false)
        case .readComplete: return machine.readComplete()
        case .abandon: return machine.abandonBody()
        case .check(let ms, let reading): return machine.idleCheck(now: at(ms), reading: reading)
        }
    }

    // MARK: - labels (the machine's actions and states are not Equatable: compare their shape)

    static func label(_ parts: [ByteBuffer]) -> String {
        "[" + parts.map { String(buffer: $0) }.joined(separator: ",") + "]"
    }

    static func label(_ error: SessionError) -> String { "\(error.code)" }

    static func label(_ action: Machine.Action) -> String {
        switch action {
        case .none: "none"
        case .sendRequest: "sendRequest"
        case .read: "read"
        case .succeedHead: "succeedHead"
        case .failHead(let error): "failHead(\(label(error)))"
        case .deliver(let parts): "deliver\(label(parts))"
        case .deliverAndRead(let parts): "deliverAndRead\(label(parts))"
        case .deliverAndFinish(let parts): "deliverAndFinish\(label(parts))"
        case .deliverAndFail(let parts, let error): "deliverAndFail\(label(parts))(\(label(error)))"
        case .finishBody: "finishBody"
        case .failBody(let error): "failBody(\(label(error)))"
        case .refuse(let error): "refuse(\(label(error)))"
        case .close: "close"
        case .sendHeadAndBody: "sendHeadAndBody"
        case .sendHeadAwaitingContinue: "sendHeadAwaitingContinue"
        case .startBody: "startBody"
        case .withholdBodyAndSucceedHead: "withholdBodyAndSucceedHead"
        }
    }

    /// The state, plus ` poisoned` and ` garbage` when those flags are set.
    static func label(_ machine: Machine) -> String {
        var text: String
        switch machine.state {
        case .idle: text = "idle"
        case .awaitingHead: text = "awaitingHead"
        case .parked(let buffered, nil): text = "parked\(label(buffered))"
        case .parked(let buffered, .complete?): text = "parked\(label(buffered))+complete"
        case .parked(let buffered, .failed(let error)?): text = "parked\(label(buffered))+failed(\(label(error)))"
        case .streaming(let paused): text = paused ? "streaming(paused)" : "streaming"
        case .closed(let error): text = "closed(\(label(error)))"
        }
        if machine.isPoisoned { text += " poisoned" }
        if machine.trailingGarbage { text += " garbage" }
        return text
    }

    // MARK: - the starting states

    /// A state reached through the machine's own events (never built by hand).
    enum Start: String, CaseIterable, Sendable {
        case idle, awaitingHead, parked, parkedBuffered, parkedComplete, parkedFailed, streaming, streamingPaused
        case closed, idlePoisoned, idleGarbage

        var events: [Event] {
            switch self {
            case .idle: []
            case .awaitingHead: [.send]
            case .parked: [.send, .head]
            case .parkedBuffered: [.send, .head, .body("a")]
            case .parkedComplete: [.send, .head, .body("a"), .end]
            case .parkedFailed: [.send, .head, .body("a"), .inactive]
            case .streaming: [.send, .head, .attach]
            case .streamingPaused: [.send, .head, .attach, .pause]
            case .closed: [.send, .inactive]
            // A complete body whose connection then failed: delivered, never reused.
            case .idlePoisoned: [.send, .head, .body("a"), .end, .otherError, .attach]
            case .idleGarbage: [.send, .head, .attach, .end, .body("x")]
            }
        }

        var machine: Machine {
            var machine = Machine(idleTimeout: .seconds(10), now: HTTP1ConnectionStateMachineTests.at(0))
            for event in events { _ = HTTP1ConnectionStateMachineTests.apply(event, to: &machine) }
            return machine
        }
    }

    @Test("the starting states are what their names say", arguments: Start.allCases)
    func starts(_ start: Start) {
        let expected: [Start: String] = [
            .idle: "idle", .awaitingHead: "awaitingHead", .parked: "parked[]", .parkedBuffered: "parked[a]",
            .parkedComplete: "parked[a]+complete", .parkedFailed: "parked[a]+failed(connectionClosed) poisoned",
            .streaming: "streaming", .streamingPaused: "streaming(paused)", .closed: "closed(connectionClosed) poisoned",
            .idlePoisoned: "idle poisoned", .idleGarbage: "closed(badResponse) poisoned garbage",
        ]
        #expect(Self.label(start.machine) == expected[start])
        #expect(start.machine.isIdle == (start == .idle))
        #expect(start.machine.needsIdleCheck == [.awaitingHead, .streaming, .streamingPaused].contains(start))
    }

    // MARK: - every state × every event

    typealias Transition = MachineTransition<Start, Event>

    static func t(_ start: Start, _ event: Event, _ action: String, _ after: String) -> Transition {
        Transition(start: start, event: event, action: action, after: after)
    }

    static let transitions: [Transition] = [
        // idle: only a request is expected; any byte or end is garbage and poisons.
        t(.idle, .send, "sendRequest", "awaitingHead"),
        t(.idle, .head, "close", "closed(badResponse) poisoned garbage"),
        t(.idle, .body("x"), "close", "closed(badResponse) poisoned garbage"),
        t(.idle, .end, "close", "closed(badResponse) poisoned garbage"),
        t(.idle, .attach, "failBody(badResponse)", "idle"),
        t(.idle, .satisfied, "finishBody", "closed(connectionClosed) poisoned"),
        t(.idle, .pause, "none", "idle"),
        t(.idle, .unpause, "none", "idle"),
        t(.idle, .inactive, "none", "closed(connectionClosed)"),
        t(.idle, .parseError, "close", "closed(badResponse) poisoned garbage"),
        t(.idle, .otherError, "close", "closed(fileIO) poisoned"),
        t(.idle, .readComplete, "read", "idle"),
        t(.idle, .abandon, "none", "idle"),

        // awaitingHead: the head is handed over; anything else fails the head.
        t(.awaitingHead, .send, "refuse(connectionClosed)", "awaitingHead"),
        t(.awaitingHead, .head, "succeedHead", "parked[]"),
        t(.awaitingHead, .body("x"), "failHead(badResponse)", "closed(badResponse) poisoned"),
        t(.awaitingHead, .end, "failHead(badResponse)", "closed(badResponse) poisoned"),
        t(.awaitingHead, .attach, "failBody(badResponse)", "awaitingHead"),
        t(.awaitingHead, .satisfied, "none", "awaitingHead"),
        t(.awaitingHead, .pause, "none", "awaitingHead"),
        t(.awaitingHead, .inactive, "failHead(connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.awaitingHead, .parseError, "failHead(badResponse)", "closed(badResponse) poisoned"),
        t(.awaitingHead, .otherError, "failHead(fileIO)", "closed(fileIO) poisoned"),
        t(.awaitingHead, .readComplete, "read", "awaitingHead"),
        t(.awaitingHead, .abandon, "none", "awaitingHead"),

        // parked, nothing buffered: parts wait for the sink; no reads until it comes.
        t(.parked, .send, "refuse(connectionClosed)", "parked[]"),
        t(.parked, .head, "close", "parked[]+failed(badResponse) poisoned"),
        t(.parked, .body("b"), "none", "parked[b]"),
        t(.parked, .end, "none", "parked[]+complete"),
        t(.parked, .attach, "read", "streaming"),
        t(.parked, .satisfied, "none", "parked[]"),
        t(.parked, .pause, "none", "parked[]"),
        t(.parked, .unpause, "none", "parked[]"),
        t(.parked, .inactive, "none", "parked[]+failed(connectionClosed) poisoned"),
        t(.parked, .parseError, "close", "parked[]+failed(badResponse) poisoned"),
        t(.parked, .otherError, "close", "parked[]+failed(fileIO) poisoned"),
        t(.parked, .readComplete, "none", "parked[]"),
        t(.parked, .abandon, "none", "parked[]"),

        // parked with a part: more parts queue in order; the sink gets them all, then reads on.
        t(.parkedBuffered, .body("b"), "none", "parked[a,b]"),
        t(.parkedBuffered, .end, "none", "parked[a]+complete"),
        t(.parkedBuffered, .attach, "deliverAndRead[a]", "streaming"),
        t(.parkedBuffered, .inactive, "none", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedBuffered, .parseError, "close", "parked[a]+failed(badResponse) poisoned"),
        t(.parkedBuffered, .otherError, "close", "parked[a]+failed(fileIO) poisoned"),
        t(.parkedBuffered, .readComplete, "none", "parked[a]"),
        t(.parkedBuffered, .send, "refuse(connectionClosed)", "parked[a]"),

        // parked with a complete body: it stays deliverable whatever follows on the wire.
        t(.parkedComplete, .attach, "deliverAndFinish[a]", "idle"),
        t(.parkedComplete, .body("x"), "close", "parked[a]+complete poisoned garbage"),
        t(.parkedComplete, .head, "close", "parked[a]+complete poisoned garbage"),
        t(.parkedComplete, .end, "close", "parked[a]+complete poisoned garbage"),
        t(.parkedComplete, .parseError, "close", "parked[a]+complete poisoned garbage"),
        t(.parkedComplete, .otherError, "close", "parked[a]+complete poisoned"),
        t(.parkedComplete, .inactive, "none", "parked[a]+complete poisoned"),
        t(.parkedComplete, .send, "refuse(connectionClosed)", "parked[a]+complete"),
        t(.parkedComplete, .readComplete, "none", "parked[a]+complete"),
        t(.parkedComplete, .satisfied, "none", "parked[a]+complete"),
        t(.parkedComplete, .abandon, "none", "parked[a]+complete"),

        // parked with a failed body: what arrived is delivered, then the failure.
        t(.parkedFailed, .attach, "deliverAndFail[a](connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.parkedFailed, .inactive, "none", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .send, "refuse(connectionClosed)", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .readComplete, "none", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .satisfied, "none", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .abandon, "none", "parked[a]+failed(connectionClosed) poisoned"),
        // Later errors or bytes (after the close) keep the parts and the first reason.
        t(.parkedFailed, .parseError, "close", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .otherError, "close", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .body("x"), "close", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .head, "close", "parked[a]+failed(connectionClosed) poisoned"),
        t(.parkedFailed, .end, "close", "parked[a]+failed(connectionClosed) poisoned"),

        // streaming: parts go straight to the sink; the end makes the connection idle again.
        t(.streaming, .send, "refuse(connectionClosed)", "streaming"),
        t(.streaming, .head, "failBody(badResponse)", "closed(badResponse) poisoned"),
        t(.streaming, .body("b"), "deliver[b]", "streaming"),
        t(.streaming, .end, "finishBody", "idle"),
        t(.streaming, .attach, "failBody(badResponse)", "streaming"),
        t(.streaming, .satisfied, "finishBody", "closed(connectionClosed) poisoned"),
        t(.streaming, .pause, "none", "streaming(paused)"),
        t(.streaming, .unpause, "none", "streaming"),
        t(.streaming, .inactive, "failBody(connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.streaming, .parseError, "failBody(badResponse)", "closed(badResponse) poisoned"),
        t(.streaming, .otherError, "failBody(fileIO)", "closed(fileIO) poisoned"),
        t(.streaming, .readComplete, "read", "streaming"),
        t(.streaming, .abandon, "failBody(cancelled)", "closed(cancelled) poisoned"),

        // streaming, paused: bytes already asked for still arrive; no new read until unpaused.
        t(.streamingPaused, .body("b"), "deliver[b]", "streaming(paused)"),
        t(.streamingPaused, .end, "finishBody", "idle"),
        t(.streamingPaused, .pause, "none", "streaming(paused)"),
        t(.streamingPaused, .unpause, "read", "streaming"),
        t(.streamingPaused, .readComplete, "none", "streaming(paused)"),
        t(.streamingPaused, .satisfied, "finishBody", "closed(connectionClosed) poisoned"),
        t(.streamingPaused, .inactive, "failBody(connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.streamingPaused, .otherError, "failBody(fileIO)", "closed(fileIO) poisoned"),
        t(.streamingPaused, .abandon, "failBody(cancelled)", "closed(cancelled) poisoned"),

        // closed: requests and sinks are refused with the reason; nothing revives it.
        t(.closed, .send, "refuse(connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.closed, .attach, "failBody(connectionClosed)", "closed(connectionClosed) poisoned"),
        t(.closed, .inactive, "none", "closed(connectionClosed) poisoned"),
        t(.closed, .readComplete, "none", "closed(connectionClosed) poisoned"),
        t(.closed, .satisfied, "none", "closed(connectionClosed) poisoned"),
        t(.closed, .pause, "none", "closed(connectionClosed) poisoned"),
        t(.closed, .abandon, "none", "closed(connectionClosed) poisoned"),
        t(.closed, .body("x"), "close", "closed(badResponse) poisoned"),
        t(.closed, .otherError, "close", "closed(fileIO) poisoned"),

        // idle but poisoned: never carries another request, never reads for one.
        t(.idlePoisoned, .send, "refuse(connectionClosed)", "idle poisoned"),
        t(.idlePoisoned, .readComplete, "none", "idle poisoned"),
        t(.idlePoisoned, .inactive, "none", "closed(connectionClosed) poisoned"),
        t(.idlePoisoned, .body("x"), "close", "closed(badResponse) poisoned garbage"),

        // garbage after a streamed body: closed, the flag stays for the driver's warning.
        t(.idleGarbage, .send, "refuse(badResponse)", "closed(badResponse) poisoned garbage"),
        t(.idleGarbage, .inactive, "none", "closed(badResponse) poisoned garbage"),
    ]

    @Test(arguments: transitions)
    func transition(_ c: Transition) {
        var machine = c.start.machine
        let action = Self.apply(c.event, to: &machine)
        #expect(Self.label(action) == c.action)
        #expect(Self.label(machine) == c.after)
    }

    /// The table above names every state; this checks it also names every event for the states
    /// a live connection spends its time in, so a new event cannot go untested there.
    @Test("the table covers every event of the main states")
    func tableCoversEvents() {
        let events: [Event] = [.send, .head, .body("x"), .end, .attach, .satisfied, .pause, .inactive, .parseError, .otherError,
                               .readComplete, .abandon]
        for start in [Start.idle, .awaitingHead, .parked, .streaming] {
            let named = Set(Self.transitions.filter { $0.start == start }.map(\.event.name))
            for event in events {
                #expect(named.contains(event.name), "\(start.rawValue) has no row for \(event)")
            }
        }
    }

    // MARK: - whole exchanges

    struct Run: CustomTestStringConvertible, Sendable {
        let name: String
        let events: [Event]
        let actions: [String]
        let after: String
        var testDescription: String { name }
    }

    static let runs: [Run] = [
        Run(name: "two requests on one connection",
            events: [.send, .head, .attach, .body("a"), .end, .readComplete, .send, .head, .body("b"), .end, .attach],
            actions: ["sendRequest", "succeedHead", "read", "deliver[a]", "finishBody", "read", "sendRequest", "succeedHead", "none",
                      "none", "deliverAndFinish[b]"],
            after: "idle"),
        Run(name: "parts that came with the head are delivered in order",
            events: [.send, .head, .body("a"), .body("b"), .body("c"), .attach, .body("d"), .end],
            actions: ["sendRequest", "succeedHead", "none", "none", "none", "deliverAndRead[a,b,c]", "deliver[d]", "finishBody"],
            after: "idle"),
        Run(name: "garbage after a complete parked body: body kept, connection not reused",
            events: [.send, .head, .body("a"), .end, .body("junk"), .attach, .send],
            actions: ["sendRequest", "succeedHead", "none", "none", "close", "deliverAndFinish[a]", "refuse(connectionClosed)"],
            after: "idle poisoned garbage"),
        Run(name: "a parse error after a complete parked body is garbage, not a broken body",
            events: [.send, .head, .body("a"), .end, .parseError, .inactive, .attach],
            actions: ["sendRequest", "succeedHead", "none", "none", "close", "none", "deliverAndFinish[a]"],
            after: "idle poisoned garbage"),
        Run(name: "a cut parked body: the parts, then the failure",
            events: [.send, .head, .body("a"), .body("b"), .parseError, .inactive, .attach],
            actions: ["sendRequest", "succeedHead", "none", "none", "close", "none", "deliverAndFail[a,b](badResponse)"],
            after: "closed(badResponse) poisoned"),
        Run(name: "the server closes before a parse error is reported: the parts and the close win",
            events: [.send, .head, .body("a"), .inactive, .otherError, .attach],
            actions: ["sendRequest", "succeedHead", "none", "none", "close", "deliverAndFail[a](connectionClosed)"],
            after: "closed(connectionClosed) poisoned"),
        Run(name: "a 204-like response with a body after its end",
            events: [.send, .head, .end, .body("x"), .attach],
            actions: ["sendRequest", "succeedHead", "none", "close", "deliverAndFinish[]"],
            after: "idle poisoned garbage"),
        Run(name: "a segment satisfied mid-body leaves the rest unread",
            events: [.send, .head, .attach, .body("a"), .satisfied, .readComplete, .body("b"), .send],
            actions: ["sendRequest", "succeedHead", "read", "deliver[a]", "finishBody", "none", "close", "refuse(badResponse)"],
            after: "closed(badResponse) poisoned"),
        Run(name: "a satisfied sink while a complete body is delivered",
            events: [.send, .head, .body("a"), .end, .attach, .satisfied],
            actions: ["sendRequest", "succeedHead", "none", "none", "deliverAndFinish[a]", "finishBody"],
            after: "closed(connectionClosed) poisoned"),
        Run(name: "server closes the idle connection",
            events: [.send, .head, .attach, .end, .readComplete, .inactive, .send],
            actions: ["sendRequest", "succeedHead", "read", "finishBody", "read", "none", "refuse(connectionClosed)"],
            after: "closed(connectionClosed)"),
    ]

    @Test(arguments: runs)
    func run(_ r: Run) {
        var machine = Machine(idleTimeout: .seconds(10), now: Self.at(0))
        let actions = r.events.map { Self.apply($0, to: &machine) }.map(Self.label)
        #expect(actions == r.actions)
        #expect(Self.label(machine) == r.after)
    }
}
