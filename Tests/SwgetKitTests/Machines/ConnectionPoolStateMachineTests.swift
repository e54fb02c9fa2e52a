#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The keep-alive pool's bookkeeping: leases, waiters in arrival order, hand-over, closes that
/// pass a slot on, idle closes, the starvation rule, cancelled waiters and shutdown — by scripts
/// of events and their actions, then by seeded random runs that check the invariants stated at
/// the top of ConnectionPool+StateMachine.swift after every step.
@Suite("Connection pool machine (pure)")
struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine

    static let a = PoolKey(origin: Origin(URL(string: "http://a.example/")!))
    static let b = PoolKey(origin: Origin(URL(string: "https://b.example/")!))
    static let aViaProxy = PoolKey(origin: Origin(URL(string: "http://a.example/")!), proxy: "proxy:3128")

    enum Event: Sendable, CustomStringConvertible {
        case lease(PoolKey, waiter: Int, loop: Int? = nil)
        case release(PoolKey, Int?, reusable: Bool, loop: Int? = nil)
        case connectFailed(PoolKey)
        case idleClosed(PoolKey, Int)
        case closeIdle(PoolKey)
        case cancel(PoolKey, waiter: Int)
        case shutdown

        var description: String {
            switch self {
            case .lease(let key, let waiter, let loop): "lease(\(key.origin.host), w\(waiter)\(loop.map { ", loop \($0)" } ?? ""))"
            case .release(let key, let id, let reusable, let loop):
                "release(\(key.origin.host), \(id.map(String.init) ?? "nil"), \(reusable ? "reusable" : "spent")\(loop.map { ", loop \($0)" } ?? ""))"
            case .connectFailed(let key): "connectFailed(\(key.origin.host))"
            case .idleClosed(let key, let id): "idleClosed(\(key.origin.host), \(id))"
            case .closeIdle(let key): "closeIdle(\(key.origin.host))"
            case .cancel(let key, let waiter): "cancel(\(key.origin.host), w\(waiter))"
            case .shutdown: "shutdown"
            }
        }
    }

    /// Applies an event and labels what the machine answered.
    static func apply(_ event: Event, to machine: inout Machine) -> String {
        switch event {
        case .lease(let key, let waiter, let loop):
            switch machine.lease(key, waiter: waiter, loop: loop) {
            case .grant(.connect): return "connect"
            case .grant(.reuse(let id)): return "reuse \(id)"
            case .grant(.shutDown): return "shutDown"
            case .wait: return "wait"
            }
        case .release(let key, let id, let reusable, let loop):
            return label(machine.release(key, connection: id, reusable: reusable, loop: loop))
        case .connectFailed(let key):
            return label(machine.connectFailed(key))
        case .idleClosed(let key, let id):
            return machine.idleClosed(key, connection: id).map { "wake w\($0)" } ?? "nothing"
        case .closeIdle(let key):
            return "closing \(machine.closeIdle(key))"
        case .cancel(let key, let waiter):
            return machine.cancelWaiter(key, waiter: waiter) ? "cancelled" : "too late"
        case .shutdown:
            let (idle, waiters) = machine.shutdown()
            return "close \(idle.sorted()), fail \(waiters.sorted())"
        }
    }

    static func label(_ action: Machine.ReleaseAction) -> String {
        switch action {
        case .park(let id): "park \(id)"
        case .handOver(let id, let waiter): "hand \(id) to w\(waiter)"
        case .close(let id, let waiter): "close \(id.map(String.init) ?? "nothing")" + (waiter.map { ", wake w\($0)" } ?? "")
        }
    }

    /// The per-key picture: open count, idle connections, waiters.
    static func picture(_ machine: Machine, _ key: PoolKey) -> String {
        "open \(machine.openCount(key)), idle \(machine.idleConnections(key)), waiting \(machine.waiters(key))"
    }

    struct Script: CustomTestStringConvertible, Sendable {
        let name: String
        var limit = 2
        let steps: [(Event, String)]
        /// The picture of key `a` at the end.
        let after: String
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(name: "leases connect up to the limit, then wait in arrival order",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait"),
                       (.lease(a, waiter: 4), "wait")],
               after: "open 2, idle [], waiting [3, 4]"),
        Script(name: "a reusable connection goes to the oldest waiter",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait"),
                       (.lease(a, waiter: 4), "wait"), (.release(a, 20, reusable: true), "hand 20 to w3"),
                       (.release(a, 10, reusable: true), "hand 10 to w4"), (.release(a, 20, reusable: true), "park 20")],
               after: "open 2, idle [20], waiting []"),
        Script(name: "a spent connection closes and its slot wakes the oldest waiter",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait"),
                       (.release(a, 10, reusable: false), "close 10, wake w3"), (.release(a, 20, reusable: false), "close 20")],
               after: "open 1, idle [], waiting []"),
        Script(name: "a failed connect frees its slot, or passes it on",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait"),
                       (.connectFailed(a), "close nothing, wake w3"), (.connectFailed(a), "close nothing"),
                       (.connectFailed(a), "close nothing")],
               after: "open 0, idle [], waiting []"),
        Script(name: "idle connections are reused, the most recent first",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"),
                       (.release(a, 10, reusable: true), "park 10"), (.release(a, 20, reusable: true), "park 20"),
                       (.lease(a, waiter: 3), "reuse 20"), (.lease(a, waiter: 4), "reuse 10"), (.lease(a, waiter: 5), "wait")],
               after: "open 2, idle [], waiting [5]"),
        Script(name: "a lease on a loop takes that loop's idle connection, then another loop's, then connects",
               limit: 3,
               steps: [(.lease(a, waiter: 1, loop: 1), "connect"), (.lease(a, waiter: 2, loop: 2), "connect"),
                       (.release(a, 10, reusable: true, loop: 1), "park 10"), (.release(a, 20, reusable: true, loop: 2), "park 20"),
                       (.lease(a, waiter: 3, loop: 1), "reuse 10"), (.lease(a, waiter: 4, loop: 1), "reuse 20"),
                       (.lease(a, waiter: 5, loop: 1), "connect"), (.lease(a, waiter: 6, loop: 2), "wait")],
               after: "open 3, idle [], waiting [6]"),
        Script(name: "a lease without a loop takes the most recent idle connection, whatever its loop",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"),
                       (.release(a, 10, reusable: true, loop: 2), "park 10"), (.release(a, 20, reusable: true, loop: 1), "park 20"),
                       (.lease(a, waiter: 3), "reuse 20"), (.lease(a, waiter: 4, loop: 3), "reuse 10")],
               after: "open 2, idle [], waiting []"),
        Script(name: "a released connection goes to the oldest waiter on its loop, else to the oldest",
               steps: [(.lease(a, waiter: 1, loop: 1), "connect"), (.lease(a, waiter: 2, loop: 2), "connect"),
                       (.lease(a, waiter: 3, loop: 1), "wait"), (.lease(a, waiter: 4, loop: 2), "wait"),
                       (.lease(a, waiter: 5, loop: 2), "wait"),
                       (.release(a, 20, reusable: true, loop: 2), "hand 20 to w4"),
                       (.release(a, 10, reusable: true, loop: 3), "hand 10 to w3"),
                       (.release(a, 20, reusable: true), "hand 20 to w5")],
               after: "open 2, idle [], waiting []"),
        Script(name: "a waiter is passed over for its loop's younger waiters three times, then served",
               limit: 1,
               steps: [(.lease(a, waiter: 1, loop: 2), "connect"), (.lease(a, waiter: 2, loop: 1), "wait"),
                       (.lease(a, waiter: 3, loop: 2), "wait"), (.release(a, 10, reusable: true, loop: 2), "hand 10 to w3"),
                       (.lease(a, waiter: 4, loop: 2), "wait"), (.release(a, 10, reusable: true, loop: 2), "hand 10 to w4"),
                       (.lease(a, waiter: 5, loop: 2), "wait"), (.release(a, 10, reusable: true, loop: 2), "hand 10 to w5"),
                       (.lease(a, waiter: 6, loop: 2), "wait"), (.release(a, 10, reusable: true, loop: 2), "hand 10 to w2"),
                       (.release(a, 10, reusable: true, loop: 2), "hand 10 to w6")],
               after: "open 1, idle [], waiting []"),
        Script(name: "a freed slot goes to the oldest waiter, whatever its loop (it connects on its own)",
               steps: [(.lease(a, waiter: 1, loop: 1), "connect"), (.lease(a, waiter: 2, loop: 2), "connect"),
                       (.lease(a, waiter: 3, loop: 1), "wait"), (.lease(a, waiter: 4, loop: 2), "wait"),
                       (.release(a, 20, reusable: false, loop: 2), "close 20, wake w3"), (.idleClosed(a, 10), "nothing"),
                       (.connectFailed(a), "close nothing, wake w4")],
               after: "open 2, idle [], waiting []"),
        Script(name: "an idle connection closing by itself frees its slot",
               steps: [(.lease(a, waiter: 1), "connect"), (.release(a, 10, reusable: true), "park 10"),
                       (.idleClosed(a, 10), "nothing"), (.idleClosed(a, 10), "nothing"), (.lease(a, waiter: 2), "connect")],
               after: "open 1, idle [], waiting []"),
        Script(name: "a leased connection closing is not an idle close (its lease ends it)",
               steps: [(.lease(a, waiter: 1), "connect"), (.idleClosed(a, 10), "nothing"), (.idleClosed(b, 10), "nothing")],
               after: "open 1, idle [], waiting []"),
        Script(name: "starvation rule: our idle connection goes so a one-connection server answers the others",
               limit: 4,
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "connect"),
                       (.lease(a, waiter: 4), "connect"),
                       // The server answers the first connection only; the other three wait for a head.
                       (.release(a, 10, reusable: true), "park 10"),
                       (.closeIdle(a), "closing [10]"),
                       // The slot is free: a fifth task connects rather than reusing a connection the
                       // server would not serve.
                       (.lease(a, waiter: 5), "connect")],
               after: "open 4, idle [], waiting []"),
        Script(name: "closeIdle closes every idle connection and nothing else",
               limit: 3,
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "connect"),
                       (.release(a, 10, reusable: true), "park 10"), (.release(a, 20, reusable: true), "park 20"),
                       (.closeIdle(b), "closing []"), (.closeIdle(a), "closing [10, 20]"), (.closeIdle(a), "closing []")],
               after: "open 1, idle [], waiting []"),
        Script(name: "a cancelled waiter is skipped; cancelling twice or after the grant is too late",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait"),
                       (.lease(a, waiter: 4), "wait"), (.lease(a, waiter: 5), "wait"), (.cancel(a, waiter: 4), "cancelled"),
                       (.cancel(a, waiter: 4), "too late"), (.release(a, 10, reusable: true), "hand 10 to w3"),
                       (.cancel(a, waiter: 3), "too late"), (.release(a, 20, reusable: false), "close 20, wake w5"),
                       (.cancel(b, waiter: 5), "too late")],
               after: "open 2, idle [], waiting []"),
        Script(name: "shutdown closes idle connections, fails waiters, refuses leases and closes what comes back",
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"),
                       (.release(a, 10, reusable: true), "park 10"), (.lease(b, waiter: 3), "connect"),
                       (.lease(b, waiter: 4), "connect"), (.lease(b, waiter: 5), "wait"),
                       (.shutdown, "close [10], fail [5]"), (.lease(a, waiter: 6), "shutDown"),
                       (.release(a, 20, reusable: true), "close 20"), (.release(b, 30, reusable: true), "close 30"),
                       (.connectFailed(b), "close nothing")],
               after: "open 0, idle [], waiting []"),
        Script(name: "keys are independent, a proxy makes another key",
               limit: 1,
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(b, waiter: 2), "connect"), (.lease(aViaProxy, waiter: 3), "connect"),
                       (.lease(a, waiter: 4), "wait"), (.release(b, 20, reusable: true), "park 20"),
                       (.release(aViaProxy, 30, reusable: true), "park 30"), (.release(a, 10, reusable: true), "hand 10 to w4")],
               after: "open 1, idle [], waiting []"),
        Script(name: "a limit below one is one",
               limit: 0,
               steps: [(.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "wait")],
               after: "open 1, idle [], waiting [2]"),
        Script(name: "a release never drives the open count below zero",
               steps: [(.release(a, 10, reusable: false), "close 10"), (.connectFailed(a), "close nothing"),
                       (.lease(a, waiter: 1), "connect"), (.lease(a, waiter: 2), "connect"), (.lease(a, waiter: 3), "wait")],
               after: "open 2, idle [], waiting [3]"),
    ]

    @Test(arguments: scripts)
    func script(_ s: Script) {
        var machine = Machine(limit: s.limit)
        for (index, (event, expected)) in s.steps.enumerated() {
            #expect(Self.apply(event, to: &machine) == expected, "step \(index): \(event)")
        }
        #expect(Self.picture(machine, Self.a) == s.after)
    }

    @Test("an empty key leaves nothing behind")
    func emptyKeysAreDropped() {
        var machine = Machine(limit: 2)
        _ = machine.lease(Self.a, waiter: 1)
        _ = machine.release(Self.a, connection: 1, reusable: false)
        _ = machine.lease(Self.b, waiter: 2)
        _ = machine.release(Self.b, connection: 2, reusable: true)
        _ = machine.idleClosed(Self.b, connection: 2)
        #expect(Self.picture(machine, Self.a) == "open 0, idle [], waiting []")
        #expect(Self.picture(machine, Self.b) == "open 0, idle [], waiting []")
        #expect(!machine.isShutDown)
    }

    // MARK: - seeded random runs

    /// What the driver knows, kept beside the machine: which connections are leased or idle,
    /// how many grants to connect are outstanding, and who waits, in order.
    /// A waiter as the driver knows it: its loop, and how often a younger one went first.
    struct Waiter: Equatable {
        let id: Int
        let loop: Int?
        var overtaken = 0
    }

    struct Model {
        var leased: [PoolKey: Set<Int>] = [:]
        var idle: [PoolKey: Set<Int>] = [:]
        var connecting: [PoolKey: Int] = [:]
        var waiters: [PoolKey: [Waiter]] = [:]
        var shutDown = false
        /// How often each rule fired, so a run that never reaches one is noticed.
        var seen: [String: Int] = [:]
    }

    /// Performs an action the way ConnectionPool does and checks it against the model.
    static func perform(_ action: Machine.ReleaseAction, key: PoolKey, model: inout Model, step: String, loop: Int? = nil) {
        switch action {
        case .park(let id):
            #expect(!model.shutDown, "\(step): parked after shutdown")
            #expect(model.waiters[key, default: []].isEmpty, "\(step): parked \(id) while someone waits")
            model.idle[key, default: []].insert(id)
        case .handOver(let id, let waiter):
            model.seen["handOver", default: 0] += 1
            // The oldest waiter on the connection's loop, unless an older one was passed over
            // maxOvertakes times; the oldest when none is on that loop (or no loop is known).
            let waiting = model.waiters[key, default: []]
            guard let index = waiting.firstIndex(where: { $0.id == waiter }) else {
                Issue.record("\(step): handed \(id) to w\(waiter), who does not wait")
                return
            }
            let chosen = waiting[index]
            if let loop, waiting.contains(where: { $0.loop == loop || $0.overtaken >= Machine.maxOvertakes }) {
                #expect(chosen.loop == loop || chosen.overtaken >= Machine.maxOvertakes, "\(step): handed \(id) to w\(waiter) on another loop")
                #expect(waiting[..<index].allSatisfy { $0.loop != loop && $0.overtaken < Machine.maxOvertakes },
                        "\(step): handed \(id) to w\(waiter) past an older waiter it had to serve")
            } else {
                #expect(index == 0, "\(step): handed \(id) to w\(waiter), not the oldest")
            }
            if index > 0 { model.seen["loopHandOver", default: 0] += 1 }
            for older in 0..<index { model.waiters[key]?[older].overtaken += 1 }
            model.waiters[key]?.remove(at: index)
            model.leased[key, default: []].insert(id)
        case .close(_, let waiter?):
            model.seen["wake", default: 0] += 1
            #expect(model.waiters[key, default: []].first?.id == waiter, "\(step): woke w\(waiter), not the oldest")
            model.waiters[key]?.removeFirst()
            model.connecting[key, default: 0] += 1
        case .close(_, nil):
            break
        }
    }

    static func checkInvariants(_ machine: Machine, _ model: Model, limit: Int, keys: [PoolKey], step: String) {
        for key in keys {
            let open = machine.openCount(key)
            let idle = machine.idleConnections(key)
            let waiters = machine.waiters(key)
            let expectedOpen = model.leased[key, default: []].count + model.idle[key, default: []].count + model.connecting[key, default: 0]
            #expect(open == expectedOpen, "\(step): open \(open), the driver holds \(expectedOpen)")
            #expect(Set(idle) == model.idle[key, default: []] && idle.count == Set(idle).count, "\(step): idle \(idle)")
            #expect(waiters == model.waiters[key, default: []].map(\.id), "\(step): waiters \(waiters)")
            #expect(idle.count <= open && open <= limit, "\(step): idle \(idle.count), open \(open), limit \(limit)")
            if !waiters.isEmpty {
                #expect(open == limit && idle.isEmpty, "\(step): a waiter while open \(open) < \(limit) or idle \(idle)")
            }
            #expect(model.leased[key, default: []].isDisjoint(with: Set(idle)), "\(step): a connection leased and idle")
        }
    }

    /// Serialized: the runs are CPU-bound, and the suite's socket tests (which assume their
    /// task gets to run within seconds) share the two cores of the machine that runs them.
    @Test("random runs keep the invariants at every step", .serialized, arguments: 0..<12)
    func randomRun(seed: UInt64) {
        var random = SplitMix64(seed: 0x9001 + seed)
        let limit = Int(random.next() % 4) + 1
        let keys = [Self.a, Self.b, Self.aViaProxy]
        var machine = Machine(limit: limit)
        var model = Model()
        var nextID = 100
        for stepIndex in 0..<2000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let roll = random.next() % 100
            // Busy stretches (many leases: waiters, hand-overs) alternate with quiet ones (few
            // leases: connections park and close idle).
            let l: UInt64 = (stepIndex / 250) % 2 == 0 ? 20 : 3
            var step = "seed \(seed) step \(stepIndex)"
            if roll < l {
                nextID += 1
                let waiter = nextID
                // Connection n runs on loop n % 2; a lease asks for loop 0, loop 1 or none.
                let loop = [nil, 0, 1][Int(random.next() % 3)]
                step += " lease(w\(waiter), loop \(loop.map(String.init) ?? "any"))"
                switch machine.lease(key, waiter: waiter, loop: loop) {
                case .grant(.connect):
                    #expect(!model.shutDown)
                    #expect(model.idle[key, default: []].isEmpty, "\(step): connected while \(model.idle[key, default: []]) idle")
                    model.connecting[key, default: 0] += 1
                case .grant(.reuse(let id)):
                    #expect(model.idle[key, default: []].contains(id), "\(step): reused \(id), which is not idle")
                    if let loop, model.idle[key, default: []].contains(where: { $0 % 2 == loop }) {
                        #expect(id % 2 == loop, "\(step): reused \(id) while loop \(loop) had one idle")
                        model.seen["sameLoop", default: 0] += 1
                    }
                    model.idle[key]?.remove(id)
                    model.leased[key, default: []].insert(id)
                case .grant(.shutDown):
                    #expect(model.shutDown, "\(step): shutDown before shutdown")
                case .wait:
                    model.seen["wait", default: 0] += 1
                    model.waiters[key, default: []].append(Waiter(id: waiter, loop: loop))
                }
            } else if roll < l + 15, model.connecting[key, default: 0] > 0 {
                model.connecting[key, default: 0] -= 1
                if random.next() % 5 == 0 {
                    step += " connectFailed"
                    Self.perform(machine.connectFailed(key), key: key, model: &model, step: step)
                } else {
                    nextID += 1
                    model.leased[key, default: []].insert(nextID)
                    step += " connected(\(nextID))"
                }
            } else if roll < l + 45, let id = model.leased[key, default: []].sorted().randomElement(using: &random) {
                let reusable = random.next() % 3 != 0
                step += " release(\(id), \(reusable))"
                model.leased[key]?.remove(id)
                Self.perform(machine.release(key, connection: id, reusable: reusable, loop: id % 2), key: key, model: &model, step: step,
                             loop: id % 2)
            } else if roll < l + 50, let id = model.idle[key, default: []].sorted().randomElement(using: &random) {
                step += " idleClosed(\(id))"
                model.idle[key]?.remove(id)
                if let waiter = machine.idleClosed(key, connection: id) {
                    Self.perform(.close(id, wake: waiter), key: key, model: &model, step: step)
                }
            } else if roll < l + 56 {
                step += " closeIdle"
                let closing = machine.closeIdle(key)
                if !closing.isEmpty { model.seen["closeIdle", default: 0] += 1 }
                #expect(Set(closing) == model.idle[key, default: []], "\(step): closed \(closing)")
                model.idle[key] = []
            } else if roll < l + 71, let waiter = model.waiters[key, default: []].randomElement(using: &random)?.id {
                step += " cancel(w\(waiter))"
                let cancelled = machine.cancelWaiter(key, waiter: waiter)
                model.seen["cancel", default: 0] += 1
                #expect(cancelled, "\(step)")
                model.waiters[key]?.removeAll { $0.id == waiter }
                let again = machine.cancelWaiter(key, waiter: waiter)
                #expect(!again, "\(step): cancelled twice")
            } else if roll == 99, stepIndex > 1600, !model.shutDown {
                step += " shutdown"
                let (idle, waiters) = machine.shutdown()
                let allIdle = Set(model.idle.values.flatMap { $0 })
                let allWaiters = Set(model.waiters.values.flatMap { $0.map(\.id) })
                #expect(Set(idle) == allIdle, "\(step)")
                #expect(Set(waiters) == allWaiters, "\(step)")
                model.shutDown = true
                model.idle = [:]
                model.waiters = [:]
            }
            Self.checkInvariants(machine, model, limit: limit, keys: keys, step: step)
        }
        // With one connection per key there is no loop to choose between.
        // (A hand-over past an older waiter, "loopHandOver", is rarer: the scripts cover it.)
        for rule in ["wait", "handOver", "wake", "closeIdle", "cancel"] + (limit > 1 ? ["sameLoop"] : []) {
            #expect(model.seen[rule, default: 0] > 0, "seed \(seed): the run never reached \(rule) (limit \(limit), \(model.seen))")
        }
        // Everything comes back: the pool ends with nothing open.
        for key in keys {
            for id in model.leased[key, default: []] {
                Self.perform(machine.release(key, connection: id, reusable: false), key: key, model: &model, step: "drain")
            }
            model.leased[key] = []
            while model.connecting[key, default: 0] > 0 {
                model.connecting[key, default: 0] -= 1
                Self.perform(machine.connectFailed(key), key: key, model: &model, step: "drain")
            }
            for id in machine.closeIdle(key) { model.idle[key]?.remove(id) }
            #expect(machine.openCount(key) == 0 && machine.waiters(key).isEmpty, "seed \(seed): \(Self.picture(machine, key))")
            Self.checkInvariants(machine, model, limit: limit, keys: keys, step: "drained")
        }
    }
}
