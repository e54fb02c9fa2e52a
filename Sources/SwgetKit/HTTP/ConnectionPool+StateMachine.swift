/// Which connections may be shared: one pool per (proxy, origin). Issue-free keys today hold the
/// origin only; a proxy adds itself here so that tunnels through different proxies never mix.
struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    let origin: Origin
    /// The proxy the connection goes through, when one does (its description, password masked).
    var proxy: String?

    init(origin: Origin, proxy: String? = nil) {
        self.origin = origin
        self.proxy = proxy
    }

    var description: String { proxy.map { "\(origin) via \($0)" } ?? origin.description }
}

/// The keep-alive pool's bookkeeping as a value: idle connections, open counts against the
/// per-host limit, and waiters in arrival order, per ``PoolKey``. ``ConnectionPool`` holds it
/// behind one lock and performs its actions; connections and waiters are plain numbers here,
/// so every rule is tested by tables (ConnectionPoolStateMachineTests).
///
/// A connection remembers the event loop that carries it (``Loop``, any number naming it): a
/// lease asking for a loop gets an idle connection on that loop first, so a task that runs on
/// a loop's thread drives its connection without crossing threads; another loop's idle
/// connection still comes before a new one.
///
/// A connection handed straight to a waiter goes to the oldest waiter on the connection's loop,
/// so that the two threads do not share the transfer; a waiter is passed over that way at
/// most ``maxOvertakes`` times, then served whatever the loop. (With 16 downloads on two loops
/// sharing 6 connections, first-come handovers put one transfer in five across threads.)
///
/// Invariants, per key: `open` counts connections leased, being connected and idle
/// (`idle.count <= open <= limit`); a waiter exists only while `open == limit` and nothing is
/// idle; a released slot goes to the oldest waiter first (as the right to connect), a released
/// connection to the oldest waiter on its loop unless an older one was passed over
/// ``maxOvertakes`` times.
struct ConnectionPoolStateMachine {
    typealias ConnectionID = Int
    typealias WaiterID = Int
    /// Names the event loop a connection runs on.
    typealias Loop = Int

    /// What a lease gets.
    enum Grant: Equatable, Sendable {
        /// Reuse this idle connection.
        case reuse(ConnectionID)
        /// Open a new connection (a slot is reserved for it).
        case connect
        /// The pool is shut down.
        case shutDown
    }

    enum LeaseAction: Equatable {
        case grant(Grant)
        /// Wait: the waiter is queued and will be granted later.
        case wait
    }

    /// What releasing a connection (or freeing a slot) does.
    enum ReleaseAction: Equatable {
        /// Keep the connection idle for later.
        case park(ConnectionID)
        /// Give the connection straight to a waiter.
        case handOver(ConnectionID, to: WaiterID)
        /// Close the connection; when a waiter is given, it may now connect.
        case close(ConnectionID?, wake: WaiterID?)
    }

    private struct Idle {
        let id: ConnectionID
        let loop: Loop?
    }

    private struct Waiter {
        let id: WaiterID
        let loop: Loop?
        /// Times a younger waiter on a connection's loop was served first.
        var overtaken = 0
    }

    private struct PerKey {
        var idle: [Idle] = []
        var open = 0
        var waiters: [Waiter] = []
        var isEmpty: Bool { idle.isEmpty && open == 0 && waiters.isEmpty }

        /// The oldest waiter, for a slot (whoever gets it connects on its own loop).
        mutating func removeOldestWaiter() -> WaiterID { waiters.removeFirst().id }

        /// The waiter a connection on `loop` goes to: the oldest on that loop, unless an older
        /// one was overtaken ``maxOvertakes`` times already (then that one); the oldest when no
        /// waiter is on `loop`. Those passed over count one more overtaking.
        mutating func removeWaiter(for loop: Loop?) -> WaiterID {
            var chosen = 0
            if let loop {
                chosen = waiters.firstIndex { $0.loop == loop || $0.overtaken >= maxOvertakes } ?? 0
            }
            for index in 0..<chosen { waiters[index].overtaken += 1 }
            return waiters.remove(at: chosen).id
        }
    }

    /// How many times a waiter may be passed over for a younger one on a connection's loop.
    static let maxOvertakes = 3

    let limit: Int
    private var keys: [PoolKey: PerKey] = [:]
    private(set) var isShutDown = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A task wants a connection for `key`, preferably on `loop`.
    mutating func lease(_ key: PoolKey, waiter: WaiterID, loop: Loop? = nil) -> LeaseAction {
        guard !isShutDown else { return .grant(.shutDown) }
        var entry = keys[key, default: PerKey()]
        defer { keys[key] = entry }
        if let loop, let index = entry.idle.lastIndex(where: { $0.loop == loop }) {
            return .grant(.reuse(entry.idle.remove(at: index).id))
        }
        if let idle = entry.idle.popLast() { return .grant(.reuse(idle.id)) }
        if entry.open < limit {
            entry.open += 1
            return .grant(.connect)
        }
        entry.waiters.append(Waiter(id: waiter, loop: loop))
        return .wait
    }

    /// A connection leased with `.connect` could not be opened: its slot is free again.
    mutating func connectFailed(_ key: PoolKey) -> ReleaseAction {
        release(key, connection: nil, reusable: false)
    }

    /// A leased connection (on `loop`) comes back; `connection` is nil for a slot whose connect
    /// failed.
    mutating func release(_ key: PoolKey, connection: ConnectionID?, reusable: Bool, loop: Loop? = nil) -> ReleaseAction {
        var entry = keys[key, default: PerKey()]
        defer { store(entry, at: key) }
        if reusable, !isShutDown, let connection {
            if !entry.waiters.isEmpty { return .handOver(connection, to: entry.removeWaiter(for: loop)) }
            entry.idle.append(Idle(id: connection, loop: loop))
            return .park(connection)
        }
        if !isShutDown, !entry.waiters.isEmpty {
            return .close(connection, wake: entry.removeOldestWaiter())  // the slot passes on
        }
        entry.open = max(0, entry.open - 1)
        return .close(connection, wake: nil)
    }

    /// An idle connection closed by itself (the server, or the idle timeout): its slot is free.
    mutating func idleClosed(_ key: PoolKey, connection: ConnectionID) -> WaiterID? {
        guard var entry = keys[key], let index = entry.idle.firstIndex(where: { $0.id == connection }) else { return nil }
        entry.idle.remove(at: index)
        defer { store(entry, at: key) }
        if !entry.waiters.isEmpty { return entry.removeOldestWaiter() }  // it may connect
        entry.open = max(0, entry.open - 1)
        return nil
    }

    /// Closes the idle connections to `key`: a request on a new connection to the same server
    /// has had no answer for a while, and a server that serves one connection at a time (GNU
    /// wget's test server, small embedded servers) answers only once ours are gone.
    mutating func closeIdle(_ key: PoolKey) -> [ConnectionID] {
        guard var entry = keys[key], !entry.idle.isEmpty else { return [] }
        let closing = entry.idle.map(\.id)
        entry.idle = []
        entry.open = max(0, entry.open - closing.count)
        store(entry, at: key)
        return closing
    }

    /// A waiting task gave up (cancelled); false when it had already been granted.
    mutating func cancelWaiter(_ key: PoolKey, waiter: WaiterID) -> Bool {
        guard var entry = keys[key], let index = entry.waiters.firstIndex(where: { $0.id == waiter }) else { return false }
        entry.waiters.remove(at: index)
        store(entry, at: key)
        return true
    }

    /// Refuses new leases: the idle connections to close and the waiters to fail.
    mutating func shutdown() -> (idle: [ConnectionID], waiters: [WaiterID]) {
        isShutDown = true
        let idle = keys.values.flatMap { $0.idle.map(\.id) }
        let waiters = keys.values.flatMap { $0.waiters.map(\.id) }
        for (key, var entry) in keys {
            entry.open -= entry.idle.count
            entry.idle = []
            entry.waiters = []
            keys[key] = entry
        }
        return (idle, waiters)
    }

    /// Open connections (leased, connecting or idle) to `key`.
    func openCount(_ key: PoolKey) -> Int { keys[key]?.open ?? 0 }
    /// Idle connections to `key`, oldest first.
    func idleConnections(_ key: PoolKey) -> [ConnectionID] { keys[key]?.idle.map(\.id) ?? [] }
    /// Waiters for `key`, in order.
    func waiters(_ key: PoolKey) -> [WaiterID] { keys[key]?.waiters.map(\.id) ?? [] }

    private mutating func store(_ entry: PerKey, at key: PoolKey) {
        keys[key] = entry.isEmpty ? nil : entry
    }
}
