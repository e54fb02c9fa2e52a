import NIOCore
import Testing
@testable import SwgetKit

/// The idle read timeout of the HTTP/1 machine on a fake clock: when it fires, and what is not
/// the server's silence (the driver deciding, a paused consumer, a rate-limit hold, a late check).
extension HTTP1ConnectionStateMachineTests {
    @Test("the check interval is a quarter of the timeout, at least 10 ms", arguments: [
        (TimeAmount.seconds(60), TimeAmount.seconds(15)), (.seconds(1), .milliseconds(250)), (.milliseconds(40), .milliseconds(10)),
        (.milliseconds(20), .milliseconds(10)), (.milliseconds(1), .milliseconds(10)), (.zero, .milliseconds(10)),
    ])
    func checkInterval(_ timeout: TimeAmount, _ interval: TimeAmount) {
        #expect(Machine(idleTimeout: timeout, now: Self.at(0)).idleCheckInterval == interval)
    }

    struct IdleCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Events before the checks (at 0 ms, except checks and the timed events).
        let events: [Event]
        let fails: String?
        var testDescription: String { name }
    }

    /// Timeout 1 s, so checks every 250 ms. "fails" is the action of the last check.
    static let idleCases: [IdleCase] = [
        IdleCase(name: "awaiting a head: fails at the timeout",
                 events: [.send, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000)], fails: "failHead(readTimedOut)"),
        IdleCase(name: "awaiting a head: not a moment before",
                 events: [.send, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 999)], fails: nil),
        IdleCase(name: "streaming: fails at the timeout",
                 events: [.send, .head, .attach, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000)],
                 fails: "failBody(readTimedOut)"),
        IdleCase(name: "paused by the consumer: never the server's silence",
                 events: [.send, .head, .attach, .pause, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000),
                          .check(ms: 1250), .check(ms: 1500)], fails: nil),
        IdleCase(name: "a rate-limit pause holds reads: not silence",
                 events: [.send, .check(ms: 250, reading: false), .check(ms: 500, reading: false), .check(ms: 750, reading: false),
                          .check(ms: 1000, reading: false), .check(ms: 1250, reading: false)], fails: nil),
        IdleCase(name: "silence counts again from the end of a rate-limit pause",
                 events: [.send, .check(ms: 250, reading: false), .check(ms: 500, reading: false), .check(ms: 750),
                          .check(ms: 1000), .check(ms: 1250), .check(ms: 1500)], fails: "failHead(readTimedOut)"),
        IdleCase(name: "…and not before",
                 events: [.send, .check(ms: 250, reading: false), .check(ms: 500, reading: false), .check(ms: 750),
                          .check(ms: 1000), .check(ms: 1250), .check(ms: 1499)], fails: nil),
        IdleCase(name: "a late check does not count as silence",
                 events: [.send, .check(ms: 250), .check(ms: 1100)], fails: nil),
        IdleCase(name: "a late check restarts the count",
                 events: [.send, .check(ms: 250), .check(ms: 1100), .check(ms: 1350), .check(ms: 1600), .check(ms: 1850),
                          .check(ms: 2099)], fails: nil),
        IdleCase(name: "…which then runs out",
                 events: [.send, .check(ms: 250), .check(ms: 1100), .check(ms: 1350), .check(ms: 1600), .check(ms: 1850),
                          .check(ms: 2100)], fails: "failHead(readTimedOut)"),
        IdleCase(name: "exactly twice the interval is not late",
                 events: [.send, .check(ms: 500), .check(ms: 1000)], fails: "failHead(readTimedOut)"),
        IdleCase(name: "parked: the driver deciding is not silence",
                 events: [.send, .head, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000), .check(ms: 1250)],
                 fails: nil),
        IdleCase(name: "idle: no request, no timeout",
                 events: [.check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000), .check(ms: 1250)], fails: nil),
        IdleCase(name: "closed: nothing to time out",
                 events: [.send, .inactive, .check(ms: 250), .check(ms: 500), .check(ms: 750), .check(ms: 1000)], fails: nil),
    ]

    @Test(arguments: idleCases)
    func idle(_ c: IdleCase) {
        var machine = Machine(idleTimeout: .seconds(1), now: Self.at(0))
        var last = "none"
        for event in c.events {
            last = Self.label(Self.apply(event, to: &machine))
            if case .check = event, last != "none" { break }
        }
        #expect(last == (c.fails ?? "none"))
        if c.fails != nil { #expect(!machine.needsIdleCheck) }
    }

    /// Timed events (bytes, an unpause, an attach) reset the silence at their own time.
    @Test("activity at time t restarts the count from t", arguments: ["head", "body", "unpause", "attach"])
    func activityResets(_ kind: String) {
        var machine = Machine(idleTimeout: .seconds(1), now: Self.at(0))
        _ = machine.sendRequest(now: Self.at(0))
        switch kind {
        case "head":
            _ = machine.idleCheck(now: Self.at(250))
            _ = machine.idleCheck(now: Self.at(500))
            _ = machine.headReceived(Self.head, now: Self.at(600))
            _ = machine.attachSink(now: Self.at(600))
        case "body":
            _ = machine.headReceived(Self.head, now: Self.at(0))
            _ = machine.attachSink(now: Self.at(0))
            _ = machine.idleCheck(now: Self.at(250))
            _ = machine.idleCheck(now: Self.at(500))
            _ = machine.bodyPartReceived(ByteBuffer(string: "a"), now: Self.at(600))
        case "unpause":
            _ = machine.headReceived(Self.head, now: Self.at(0))
            _ = machine.attachSink(now: Self.at(0))
            _ = machine.sinkPaused(true, now: Self.at(0))
            _ = machine.idleCheck(now: Self.at(250))
            _ = machine.idleCheck(now: Self.at(500))
            #expect(Self.label(machine.sinkPaused(false, now: Self.at(600))) == "read")
        default:  // attach: the head came at 0, the driver took 600 ms to decide
            _ = machine.headReceived(Self.head, now: Self.at(0))
            _ = machine.idleCheck(now: Self.at(250))
            _ = machine.idleCheck(now: Self.at(500))
            #expect(Self.label(machine.attachSink(now: Self.at(600))) == "read")
        }
        for ms: Int64 in [750, 1000, 1250, 1500] {
            #expect(Self.label(machine.idleCheck(now: Self.at(ms))) == "none", "check at \(ms) ms after activity at 600 ms")
        }
        #expect(Self.label(machine.idleCheck(now: Self.at(1600))) != "none")
    }

    @Test("a timeout's message names the seconds")
    func timeoutMessage() {
        var machine = Machine(idleTimeout: .milliseconds(1500), now: Self.at(0))
        _ = machine.sendRequest(now: Self.at(0))
        var action = Machine.Action.none
        for ms in stride(from: Int64(375), through: 1500, by: 375) { action = machine.idleCheck(now: Self.at(ms)) }
        guard case .failHead(let error) = action else {
            Issue.record("no timeout: \(Self.label(action))")
            return
        }
        #expect(error == .readTimedOut)
        #expect(error.message == "no data received for 1.5 s")
    }

    @Test("sending resets the clock of a reused connection")
    func sendResetsClock() {
        var machine = Machine(idleTimeout: .seconds(1), now: Self.at(0))
        for event: Event in [.send, .head, .attach, .end] { _ = Self.apply(event, to: &machine) }
        // Idle for a minute in the pool, with no checks running; then the next request.
        _ = machine.sendRequest(now: Self.at(60_000))
        #expect(Self.label(machine.idleCheck(now: Self.at(60_250))) == "none")
        #expect(Self.label(machine.idleCheck(now: Self.at(60_500))) == "none")
        #expect(Self.label(machine.idleCheck(now: Self.at(60_750))) == "none")
        #expect(Self.label(machine.idleCheck(now: Self.at(61_000))) == "failHead(readTimedOut)")
    }
}
