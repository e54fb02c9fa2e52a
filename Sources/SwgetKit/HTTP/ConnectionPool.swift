import NIOConcurrencyHelpers
import NIOCore

/// Keep-alive connections of one session, per origin, with a limit on open connections per
/// host. Tasks lease a connection for one exchange and give it back when the response has been
/// read completely (or close it).
final class ConnectionPool: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct PerOrigin {
        var idle: [HTTPConnection] = []
        var open = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var origins: [Origin: PerOrigin] = [:]
        var nextWaiterID = 0
        var isShutDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int
    private let idleTimeout: TimeAmount

    init(maxConnectionsPerHost: Int, idleTimeout: TimeAmount) {
        self.limit = max(1, maxConnectionsPerHost)
        self.idleTimeout = idleTimeout
    }

    private enum Step {
        case reuse(HTTPConnection)
        case connect
        case wait
        case shutDown
    }

    /// A live idle connection to `origin`, or a new one from `connect` when the per-host limit
    /// allows; otherwise waits for a slot. `reused` tells whether the connection served before.
    func lease(_ origin: Origin,
               connect: () async throws(SessionError) -> HTTPConnection) async throws(SessionError) -> (HTTPConnection, reused: Bool) {
        while true {
            let step: Step = state.withLockedValue { state in
                guard !state.isShutDown else { return .shutDown }
                var entry = state.origins[origin, default: PerOrigin()]
                defer { state.origins[origin] = entry }
                while let candidate = entry.idle.popLast() {
                    if candidate.isActive { return .reuse(candidate) }
                    entry.open -= 1
                }
                if entry.open < limit {
                    entry.open += 1
                    return .connect
                }
                return .wait
            }
            switch step {
            case .shutDown:
                throw SessionError.sessionInvalidated
            case .reuse(let connection):
                return (connection, true)
            case .connect:
                do {
                    return (try await connect(), false)
                } catch {
                    releaseSlot(origin)
                    throw error
                }
            case .wait:
                if Task.isCancelled { throw SessionError.cancelled }
                await waitForSlot(origin)
            }
        }
    }

    /// Gives a connection back: parked for reuse when `reusable`, closed otherwise.
    func release(_ connection: HTTPConnection, reusable: Bool) {
        let keep = reusable && connection.isActive
        let shutDown = state.withLockedValue { state -> Bool in
            if keep && !state.isShutDown {
                state.origins[connection.origin, default: PerOrigin()].idle.append(connection)
            }
            return state.isShutDown
        }
        if keep && !shutDown {
            connection.scheduleIdleClose(after: idleTimeout)
            wakeOne(connection.origin)
        } else {
            connection.close()
            releaseSlot(connection.origin)
        }
    }

    /// Closes every idle connection and refuses new leases.
    func shutdown() {
        let (idle, waiters) = state.withLockedValue { state in
            state.isShutDown = true
            let idle = state.origins.values.flatMap(\.idle)
            let waiters = state.origins.values.flatMap(\.waiters)
            state.origins = [:]
            return (idle, waiters)
        }
        idle.forEach { $0.close() }
        waiters.forEach { $0.continuation.resume() }
    }

    private func releaseSlot(_ origin: Origin) {
        state.withLockedValue { $0.origins[origin, default: PerOrigin()].open -= 1 }
        wakeOne(origin)
    }

    private func wakeOne(_ origin: Origin) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard var entry = state.origins[origin], !entry.waiters.isEmpty else { return nil }
            let first = entry.waiters.removeFirst()
            state.origins[origin] = entry
            return first
        }
        waiter?.continuation.resume()
    }

    private func waitForSlot(_ origin: Origin) async {
        let id = state.withLockedValue { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state -> Bool in
                    if state.isShutDown || Task.isCancelled { return true }
                    let entry = state.origins[origin, default: PerOrigin()]
                    // A slot may have freed between the failed lease and now: look again.
                    if entry.open < limit || !entry.idle.isEmpty { return true }
                    state.origins[origin, default: PerOrigin()].waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> Waiter? in
                guard var entry = state.origins[origin],
                      let index = entry.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = entry.waiters.remove(at: index)
                state.origins[origin] = entry
                return waiter
            }
            waiter?.continuation.resume()
        }
    }
}
