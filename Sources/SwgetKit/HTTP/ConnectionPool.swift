import NIOConcurrencyHelpers
import NIOCore

/// Keep-alive connections of one session, with a limit on open connections per host. A
/// connection is only ever used inside ``withConnection(_:on:connect:_:)``: the pool lends it for
/// the body of the call and takes it back when the body returns or throws, so no path can
/// forget to give it back (and starve the next task to that host).
///
/// The bookkeeping is ``ConnectionPoolStateMachine``; this class holds the connections and the
/// waiting tasks' continuations and performs the machine's actions, all under one lock.
final class ConnectionPool: Sendable {
    fileprivate struct State {
        var machine: ConnectionPoolStateMachine
        var connections: [Int: HTTPConnection] = [:]
        var waiters: [Int: CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>] = [:]
        /// Grants for waiters whose continuation was not registered yet.
        var early: [Int: ConnectionPoolStateMachine.Grant] = [:]
        var nextID = 0

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    private let state: NIOLockedValueBox<State>
    private let idleTimeout: TimeAmount

    init(maxConnectionsPerHost: Int, idleTimeout: TimeAmount) {
        state = NIOLockedValueBox(State(machine: ConnectionPoolStateMachine(limit: maxConnectionsPerHost)))
        self.idleTimeout = idleTimeout
    }

    /// Runs `body` with a connection to `key`: a live idle one (on `loop` if there is one), or a
    /// new one from `connect` when the per-host limit allows, else after waiting for one. `body`
    /// gets the connection and
    /// whether it served before; it returns its result and whether the connection may carry
    /// another request. A throwing body, or a cancelled wait, closes the connection.
    func withConnection<T>(
        _ key: PoolKey,
        on loop: EventLoop? = nil,
        connect: () async throws(SessionError) -> HTTPConnection,
        _ body: (HTTPConnection, _ reused: Bool) async throws(SessionError) -> (T, reusable: Bool)
    ) async throws(SessionError) -> T {
        let (connection, reused) = try await lease(key, loop: loop.map(Self.number), connect: connect)
        let result: (T, reusable: Bool)
        do {
            result = try await body(connection, reused)
        } catch {
            give(connection, back: key, reusable: false)
            throw error
        }
        give(connection, back: key, reusable: result.reusable)
        return result.0
    }

    /// Closes the idle connections to `key` (see ``ConnectionPoolStateMachine/closeIdle(_:)``).
    func closeIdleConnections(to key: PoolKey) {
        let closing = state.withLockedValue { state in
            state.machine.closeIdle(key).compactMap { state.connections.removeValue(forKey: $0) }
        }
        closing.forEach { $0.close() }
    }

    /// Closes every idle connection and refuses new leases.
    func shutdown() {
        let (idle, waiters) = state.withLockedValue { state in
            let (idle, waiters) = state.machine.shutdown()
            return (idle.compactMap { state.connections.removeValue(forKey: $0) },
                    waiters.compactMap { state.grant(.shutDown, to: $0)?.0 })
        }
        idle.forEach { $0.close() }
        waiters.forEach { $0.resume(returning: .shutDown) }
    }

    // MARK: leasing

    /// The machine's name for `loop`.
    private static func number(_ loop: EventLoop) -> ConnectionPoolStateMachine.Loop {
        Int(bitPattern: ObjectIdentifier(loop))
    }

    private func lease(_ key: PoolKey, loop: ConnectionPoolStateMachine.Loop?,
                       connect: () async throws(SessionError) -> HTTPConnection) async throws(SessionError) -> (HTTPConnection, Bool) {
        while true {
            let (waiter, action) = state.withLockedValue { state in
                let waiter = state.makeID()
                return (waiter, state.machine.lease(key, waiter: waiter, loop: loop))
            }
            let grant: ConnectionPoolStateMachine.Grant
            switch action {
            case .grant(let granted): grant = granted
            case .wait: grant = try await wait(key, waiter: waiter)
            }
            switch grant {
            case .shutDown:
                throw SessionError.sessionInvalidated
            case .reuse(let id):
                guard let connection = state.withLockedValue({ $0.connections[id] }) else { continue }
                if connection.isActive {
                    connection.cancelIdleClose()
                    return (connection, true)
                }
                give(connection, back: key, reusable: false)  // closed meanwhile: its slot is free
            case .connect:
                do {
                    let connection = try await connect()
                    state.withLockedValue { $0.connections[connection.id] = connection }
                    // An idle connection the server (or the idle timer) closes frees its slot.
                    connection.channel.closeFuture.whenComplete { [weak self] _ in
                        self?.idleConnectionClosed(connection.id, key: key)
                    }
                    return (connection, false)
                } catch {
                    apply(key) { $0.connectFailed(key) }
                    throw error
                }
            }
        }
    }

    private func wait(_ key: PoolKey, waiter: Int) async throws(SessionError) -> ConnectionPoolStateMachine.Grant {
        let grant = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>) in
                let early = state.withLockedValue { state -> ConnectionPoolStateMachine.Grant? in
                    if let grant = state.early.removeValue(forKey: waiter) { return grant }
                    state.waiters[waiter] = continuation
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            // Resume the waiter now, or (not registered yet) leave it a grant to find.
            let continuation = state.withLockedValue { state -> CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>? in
                guard state.machine.cancelWaiter(key, waiter: waiter) else { return nil }
                return state.grant(.shutDown, to: waiter)?.0
            }
            continuation?.resume(returning: .shutDown)
        }
        if Task.isCancelled {
            switch grant {
            case .reuse(let id):
                if let connection = state.withLockedValue({ $0.connections[id] }) { give(connection, back: key, reusable: true) }
            case .connect:
                apply(key) { $0.connectFailed(key) }
            case .shutDown:
                break
            }
            throw SessionError.cancelled
        }
        return grant
    }

    // MARK: giving back

    private func give(_ connection: HTTPConnection, back key: PoolKey, reusable: Bool) {
        let id = connection.id
        let reusable = reusable && connection.isActive
        let loop = Self.number(connection.channel.eventLoop)
        apply(key) { $0.release(key, connection: id, reusable: reusable, loop: loop) }
    }

    /// What a release means outside the lock.
    private struct Effects {
        var close: HTTPConnection?
        var park: (HTTPConnection, Int)?
        var resume: (CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>, ConnectionPoolStateMachine.Grant)?
    }

    /// Runs one release-like event of the machine and its consequences for connections and
    /// waiters in one critical section (so a grant can never get lost between a waiter being
    /// removed from the machine and its continuation being resumed), then acts outside it.
    private func apply(_ key: PoolKey, _ event: (inout ConnectionPoolStateMachine) -> ConnectionPoolStateMachine.ReleaseAction) {
        let effects = state.withLockedValue { state -> Effects in
            var effects = Effects()
            switch event(&state.machine) {
            case .park(let id):
                effects.park = state.connections[id].map { ($0, id) }
            case .handOver(let id, let waiter):
                effects.resume = state.grant(.reuse(id), to: waiter)
            case .close(let id, let waiter):
                if let id { effects.close = state.connections.removeValue(forKey: id) }
                if let waiter { effects.resume = state.grant(.connect, to: waiter) }
            }
            return effects
        }
        effects.close?.close()
        if let (continuation, grant) = effects.resume { continuation.resume(returning: grant) }
        if let (connection, _) = effects.park { connection.scheduleIdleClose(after: idleTimeout) }
    }

    private func idleConnectionClosed(_ id: Int, key: PoolKey) {
        let resume = state.withLockedValue { state -> (CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>, ConnectionPoolStateMachine.Grant)? in
            guard state.machine.idleConnections(key).contains(id) else { return nil }  // leased: its lease ends it
            let waiter = state.machine.idleClosed(key, connection: id)
            state.connections[id] = nil
            return waiter.flatMap { state.grant(.connect, to: $0) }
        }
        if let (continuation, grant) = resume { continuation.resume(returning: grant) }
    }
}

extension ConnectionPool.State {
    /// Records `grant` for `waiter`: its continuation to resume (outside the lock), or an early
    /// grant it takes when it gets to register.
    mutating func grant(_ grant: ConnectionPoolStateMachine.Grant,
                        to waiter: Int) -> (CheckedContinuation<ConnectionPoolStateMachine.Grant, Never>, ConnectionPoolStateMachine.Grant)? {
        if let continuation = waiters.removeValue(forKey: waiter) { return (continuation, grant) }
        early[waiter] = grant
        return nil
    }
}
