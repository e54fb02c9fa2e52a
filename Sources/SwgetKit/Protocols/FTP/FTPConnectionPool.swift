import NIOConcurrencyHelpers
import NIOCore

/// A session's logged-in FTP control connections waiting for their next file, keyed by
/// ``FTPConnection/Key`` (server, login, TLS mode, data-connection settings). A connection is
/// lent to one load at a time and comes back when its job ended well or failed cleanly; it is
/// closed (with `QUIT`) after the idle timeout, when the pool is full, or when the session ends.
///
/// No limit on connections in use: the session's parallelism (`-j`) bounds them.
final class FTPConnectionPool: Sendable {
    /// Idle connections kept at most (the oldest goes first).
    static let maxIdle = 8

    private struct Idle {
        let connection: FTPConnection
        let closer: Scheduled<Void>
    }

    private struct State {
        var idle: [Idle] = []
        var shutDown = false
    }

    private let idleTimeout: TimeAmount
    private let state = NIOLockedValueBox(State())

    init(idleTimeout: TimeAmount) {
        self.idleTimeout = idleTimeout
    }

    /// An idle connection for `key` that can take a job now, if there is one.
    func take(_ key: FTPConnection.Key) -> FTPConnection? {
        while true {
            let found = state.withLockedValue { state -> Idle? in
                guard let index = state.idle.firstIndex(where: { $0.connection.key == key }) else { return nil }
                return state.idle.remove(at: index)
            }
            guard let found else { return nil }
            found.closer.cancel()
            if found.connection.isReusable { return found.connection }
            found.connection.close()
        }
    }

    /// Takes `connection` back when it can carry another job (else closes it).
    func give(_ connection: FTPConnection) {
        guard connection.isReusable else {
            connection.close()
            return
        }
        let closer = connection.eventLoop.scheduleTask(in: idleTimeout) { [weak self] () -> Void in
            self?.expire(connection)
        }
        let (accepted, evicted) = state.withLockedValue { state -> (Bool, Idle?) in
            guard !state.shutDown else { return (false, nil) }
            state.idle.append(Idle(connection: connection, closer: closer))
            return (true, state.idle.count > Self.maxIdle ? state.idle.removeFirst() : nil)
        }
        if !accepted {
            closer.cancel()
            connection.quit()
        }
        if let evicted {
            evicted.closer.cancel()
            evicted.connection.quit()
        }
    }

    private func expire(_ connection: FTPConnection) {
        let removed = state.withLockedValue { state -> Bool in
            guard let index = state.idle.firstIndex(where: { $0.connection === connection }) else { return false }
            state.idle.remove(at: index)
            return true
        }
        if removed { connection.quit() }
    }

    /// Closes every idle connection and refuses new ones.
    func shutdown() {
        let idle = state.withLockedValue { state -> [Idle] in
            state.shutDown = true
            defer { state.idle = [] }
            return state.idle
        }
        for entry in idle {
            entry.closer.cancel()
            entry.connection.quit()
        }
    }
}
