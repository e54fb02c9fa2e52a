import NIOCore
import NIOHTTP1
import Testing
@testable import SwgetKit

/// The request body's phase of the HTTP/1 connection machine, by tables: sent at once, held
/// for `100 Continue` (RFC 9110 §10.1.1) until it comes or the timer fires, withheld when a
/// final answer comes first, failed when it cannot be read or the server goes away.
@Suite("HTTP/1 connection machine: request bodies and 100-continue (pure)")
struct HTTP1ConnectionStateMachineRequestBodyTests {
    typealias Machine = HTTP1ConnectionStateMachine
    typealias Base = HTTP1ConnectionStateMachineTests

    enum Event: CustomStringConvertible, Sendable {
        case send(RequestBodyMode)
        case head(UInt)
        case timer, progressed, bodyEnd, bodyFail, inactive, otherError, attach, end, readComplete

        var description: String {
            switch self {
            case .send(let mode): "send(\(mode))"
            case .head(let status): "head(\(status))"
            case .timer: "timer"
            case .progressed: "progressed"
            case .bodyEnd: "bodyEnd"
            case .bodyFail: "bodyFail"
            case .inactive: "inactive"
            case .otherError: "otherError"
            case .attach: "attach"
            case .end: "end"
            case .readComplete: "readComplete"
            }
        }
    }

    static func apply(_ event: Event, to machine: inout Machine) -> Machine.Action {
        let now = Base.at(0)
        switch event {
        case .send(let mode): return machine.sendRequest(now: now, body: mode)
        case .head(let status):
            return machine.headReceived(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: Int(status))), now: now)
        case .timer: return machine.continueTimedOut()
        case .progressed:
            machine.bodyProgressed(now: now)
            return .none
        case .bodyEnd: return machine.bodyEnded(now: now)
        case .bodyFail: return machine.bodyFailed(SessionError.fileIO.with("cannot read 'f'"))
        case .inactive: return machine.channelInactive()
        case .otherError: return machine.errorCaught(SessionError.connectionClosed.with("Broken pipe"), isParseError: false)
        case .attach: return machine.attachSink(now: now)
        case .end: return machine.endReceived(now: now)
        case .readComplete: return machine.readComplete()
        }
    }

    /// The state label of the base tests plus the body's phase.
    static func label(_ machine: Machine) -> String {
        Base.label(machine) + " body:\(machine.requestBody)"
    }

    enum Start: String, CaseIterable, Sendable {
        case idle, waiting, sending, sent, withheld, bodyless

        var events: [Event] {
            switch self {
            case .idle: []
            case .waiting: [.send(.expectContinue)]
            case .sending: [.send(.immediate)]
            case .sent: [.send(.immediate), .bodyEnd]
            case .withheld: [.send(.expectContinue), .head(401)]
            case .bodyless: [.send(.none)]
            }
        }

        var machine: Machine {
            var machine = Machine(idleTimeout: .seconds(10), now: Base.at(0))
            for event in events { _ = HTTP1ConnectionStateMachineRequestBodyTests.apply(event, to: &machine) }
            return machine
        }
    }

    typealias Transition = MachineTransition<Start, Event>

    static func t(_ start: Start, _ event: Event, _ action: String, _ after: String) -> Transition {
        Transition(start: start, event: event, action: action, after: after)
    }

    static let transitions: [Transition] = [
        // Sending a request: the mode decides what goes with the head.
        t(.idle, .send(.none), "sendRequest", "awaitingHead body:none"),
        t(.idle, .send(.immediate), "sendHeadAndBody", "awaitingHead body:sending"),
        t(.idle, .send(.expectContinue), "sendHeadAwaitingContinue", "awaitingHead body:awaitingContinue"),
        // Nothing to start or end on an idle connection; an unsolicited 100 is garbage.
        t(.idle, .timer, "none", "idle body:none"),
        t(.idle, .bodyEnd, "none", "idle body:none"),
        t(.idle, .bodyFail, "none", "idle body:none"),
        t(.idle, .head(100), "close", "closed(badResponse) poisoned garbage body:none"),

        // Waiting for 100 Continue: it (or the timer) starts the body; other 1xx are ignored.
        t(.waiting, .head(100), "startBody", "awaitingHead body:sending"),
        t(.waiting, .head(103), "none", "awaitingHead body:awaitingContinue"),
        t(.waiting, .head(102), "none", "awaitingHead body:awaitingContinue"),
        t(.waiting, .timer, "startBody", "awaitingHead body:sending"),
        t(.waiting, .progressed, "none", "awaitingHead body:awaitingContinue"),
        t(.waiting, .bodyEnd, "none", "awaitingHead body:awaitingContinue"),
        // A final answer first: the body is withheld, the answer delivered, the connection spent.
        t(.waiting, .head(401), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(407), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(417), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(413), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(307), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(200), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .head(500), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.waiting, .inactive, "failHead(connectionClosed)", "closed(connectionClosed) poisoned body:withheld"),
        t(.waiting, .otherError, "failHead(connectionClosed)", "closed(connectionClosed) poisoned body:withheld"),
        t(.waiting, .bodyFail, "failHead(fileIO)", "closed(fileIO) poisoned body:withheld"),
        t(.waiting, .readComplete, "read", "awaitingHead body:awaitingContinue"),

        // Sending: a late 100 or timer changes nothing; the end makes it a plain request.
        t(.sending, .head(100), "none", "awaitingHead body:sending"),
        t(.sending, .timer, "none", "awaitingHead body:sending"),
        t(.sending, .progressed, "none", "awaitingHead body:sending"),
        t(.sending, .bodyEnd, "none", "awaitingHead body:none"),
        t(.sending, .head(413), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.sending, .head(401), "withholdBodyAndSucceedHead", "parked[] poisoned body:withheld"),
        t(.sending, .bodyFail, "failHead(fileIO)", "closed(fileIO) poisoned body:withheld"),
        t(.sending, .inactive, "failHead(connectionClosed)", "closed(connectionClosed) poisoned body:withheld"),
        t(.sending, .otherError, "failHead(connectionClosed)", "closed(connectionClosed) poisoned body:withheld"),
        t(.sending, .send(.immediate), "refuse(connectionClosed)", "awaitingHead body:sending"),
        t(.sending, .readComplete, "read", "awaitingHead body:sending"),

        // Sent: the answer comes as for any request.
        t(.sent, .head(201), "succeedHead", "parked[] body:none"),
        t(.sent, .head(100), "none", "awaitingHead body:none"),
        t(.sent, .timer, "none", "awaitingHead body:none"),
        t(.sent, .bodyFail, "none", "awaitingHead body:none"),
        t(.sent, .inactive, "failHead(connectionClosed)", "closed(connectionClosed) poisoned body:none"),

        // Withheld: the answer is taken, the connection is never reused.
        t(.withheld, .timer, "none", "parked[] poisoned body:withheld"),
        t(.withheld, .bodyEnd, "none", "parked[] poisoned body:withheld"),
        t(.withheld, .bodyFail, "none", "parked[] poisoned body:withheld"),
        t(.withheld, .attach, "read", "streaming poisoned body:withheld"),
        t(.withheld, .send(.none), "refuse(connectionClosed)", "parked[] poisoned body:withheld"),

        // A request without a body is untouched by body events.
        t(.bodyless, .timer, "none", "awaitingHead body:none"),
        t(.bodyless, .head(100), "none", "awaitingHead body:none"),
        t(.bodyless, .head(200), "succeedHead", "parked[] body:none"),
    ]

    @Test("state × event → action, state", arguments: transitions)
    func transition(_ c: Transition) {
        var machine = c.start.machine
        let action = Self.apply(c.event, to: &machine)
        #expect(Base.label(action) == c.action)
        #expect(Self.label(machine) == c.after)
    }

    @Test("messages name the body when the connection fails during it or before the answer to it")
    func messages() {
        var machine = Start.sending.machine
        guard case .failHead(let closed) = Self.apply(.inactive, to: &machine) else {
            Issue.record("no failure")
            return
        }
        #expect(closed.message == "the server closed the connection while the request body was being sent")
        machine = Start.sending.machine
        guard case .failHead(let broken) = Self.apply(.otherError, to: &machine) else {
            Issue.record("no failure")
            return
        }
        #expect(broken.message.hasPrefix("the connection failed while the request body was being sent"))
        #expect(broken.message.contains("Broken pipe"))
        machine = Start.sent.machine
        guard case .failHead(let after) = Self.apply(.inactive, to: &machine) else {
            Issue.record("no failure")
            return
        }
        #expect(after.message == "the server closed the connection after the request body was sent, without a response")
        machine = Start.sent.machine
        guard case .failHead(let reset) = Self.apply(.otherError, to: &machine) else {
            Issue.record("no failure")
            return
        }
        #expect(reset.message.hasPrefix("the connection failed after the request body was sent, without a response ("))
        machine = Start.bodyless.machine
        guard case .failHead(let plain) = Self.apply(.inactive, to: &machine) else {
            Issue.record("no failure")
            return
        }
        #expect(plain.message == "server closed the connection without a response")
    }

    @Test("a whole exchange with a body leaves the connection reusable; a withheld one never")
    func reuse() {
        var machine = Start.sent.machine
        for event: Event in [.head(200), .attach, .end] { _ = Self.apply(event, to: &machine) }
        #expect(machine.isIdle)
        #expect(Base.label(Self.apply(.send(.expectContinue), to: &machine)) == "sendHeadAwaitingContinue")

        var withheld = Start.withheld.machine
        for event: Event in [.attach, .end] { _ = Self.apply(event, to: &withheld) }
        #expect(!withheld.isIdle)
        #expect(Base.label(Self.apply(.send(.none), to: &withheld)) == "refuse(connectionClosed)")
    }

    @Test("a slow upload is not a silent server; a stalled one times out, naming the body")
    func idleWhileSending() {
        var machine = Machine(idleTimeout: .seconds(10), now: Base.at(0))
        _ = machine.sendRequest(now: Base.at(0), body: .immediate)
        // Checks every 2.5 s; a chunk taken every 8 s keeps the request alive.
        var step: Int64 = 0
        var progressAt: Int64 = 0
        while step < 40_000 {
            step += 2_500
            if step - progressAt >= 8_000 {
                machine.bodyProgressed(now: Base.at(step))
                progressAt = step
            }
            #expect(Base.label(machine.idleCheck(now: Base.at(step))) == "none", "at \(step) ms")
        }
        // Then nothing more is taken: the check fails once 10 s passed since the last chunk.
        var failure: SessionError?
        while failure == nil && step < 80_000 {
            step += 2_500
            if case .failHead(let error) = machine.idleCheck(now: Base.at(step)) { failure = error }
        }
        #expect(failure == SessionError.readTimedOut)
        #expect(failure?.message == "the server took no request body bytes for 10.0 s")
        #expect(step - progressAt >= 10_000 && step - progressAt < 12_500)
    }
}
