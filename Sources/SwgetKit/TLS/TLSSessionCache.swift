internal import CNIOBoringSSL
import NIOSSL
import Synchronization

/// TLS session resumption for the https connections of one ``Session``: the session a server
/// issues (a TLS 1.3 ticket, RFC 8446 §4.6.1; a TLS 1.2 ticket or session ID, RFC 5077 / RFC 5246)
/// is kept per host and port and offered by the next connection, which then skips the
/// certificate exchange and the key agreement's signature (an abbreviated handshake).
///
/// NIOSSL 2.37 has no API for this, so the BoringSSL it vendors is reached directly, on each
/// connection's own `SSL_CTX` (see ``TLSContextHooks``): `SSL_CTX_sess_set_new_cb` stores the
/// sessions, the info callback at `SSL_CB_HANDSHAKE_START` offers one with `SSL_set_session`
/// (the only point before the ClientHello where a client `SSL` is reachable; BoringSSL allows
/// it there because the handshake is still in its first state).
///
/// Which sessions are kept: only those of handshakes that completed, i.e. whose server passed
/// the trust evaluation, the delegate and the pin (a refused certificate aborts the handshake
/// before any session exists). A resumed connection is not asked to verify again: the session
/// stands for the certificate checked when it was made, as in curl and browsers.
///
/// The first-handshake gate: when several connections to an origin start at once (`-j 16`),
/// only the first performs a full handshake; the others wait (``admit(host:port:)``) until it
/// has a session to share, has read its first response bytes (a server that issues no ticket
/// has done so by then), or has failed or closed. After that nobody waits for that origin again.
///
/// Bounds: at most ``maximumOrigins`` origins (the oldest forgotten first), one session each
/// (the newest).
final class TLSSessionCache: Sendable {
    struct Key: Hashable, Sendable {
        let host: String
        let port: Int

        init(host: String, port: Int) {
            self.host = host.lowercased()
            self.port = port
        }
    }

    private enum Gate {
        /// No connection to the origin has started a handshake yet.
        case unopened
        /// The first connection's handshake is running; these wait for it.
        case first(waiters: [Int: CheckedContinuation<Bool, Never>])
        /// Nobody waits any more.
        case open
    }

    private struct Entry {
        var session: StoredSession?
        var gate = Gate.unopened
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
        var nextWaiter = 0
    }

    static let maximumOrigins = 256
    private let state = Mutex(State())

    init() {}

    /// Waits, if another connection's first handshake to `host`:`port` is still running, until
    /// it opens the gate. Returns the gate keeper's ticket when this connection is the first (it
    /// must release it: ``FirstHandshake/release()``), nil otherwise. Returns at once when the
    /// calling task is cancelled.
    func admit(host: String, port: Int) async -> FirstHandshake? {
        let key = Key(host: host, port: port)
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let first = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    var entry = entry(for: key, in: &state)
                    defer { state.entries[key] = entry }
                    switch entry.gate {
                    case .unopened:
                        entry.gate = entry.session == nil ? .first(waiters: [:]) : .open
                        return entry.session == nil
                    case .first(var waiters):
                        if Task.isCancelled { return false }
                        waiters[id] = continuation
                        entry.gate = .first(waiters: waiters)
                        return nil
                    case .open:
                        return false
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard case .first(var waiters) = state.entries[key]?.gate, let continuation = waiters.removeValue(forKey: id) else {
                    return nil
                }
                state.entries[key]?.gate = .first(waiters: waiters)
                return continuation
            }
            waiting?.resume(returning: false)
        }
        return first ? FirstHandshake(cache: self, key: key) : nil
    }

    /// Opens the gate of `key`: every waiter goes on, nobody waits again.
    func open(_ key: Key) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard case .first(let waiters) = state.entries[key]?.gate else { return [] }
            state.entries[key]?.gate = .open
            return Array(waiters.values)
        }
        waiters.forEach { $0.resume(returning: false) }
    }

    /// Keeps `session` (a reference the caller hands over) as the one to offer to `key`, and
    /// opens its gate.
    func store(_ session: OpaquePointer, for key: Key) {
        let stored = StoredSession(session)
        let replaced = state.withLock { state -> StoredSession? in
            var entry = entry(for: key, in: &state)
            let old = entry.session
            entry.session = stored
            state.entries[key] = entry
            return old
        }
        _ = replaced  // freed here, outside the lock
        open(key)
    }

    /// Offers the session kept for `key` to `ssl` (before its ClientHello). True when one was set.
    func offer(to ssl: OpaquePointer, for key: Key) -> Bool {
        state.withLock { state -> Bool in
            guard let session = state.entries[key]?.session else { return false }
            return SSL_set_session(ssl, session.pointer) == 1
        }
    }

    /// The entry of `key`, made (and the oldest origins forgotten) when missing.
    private func entry(for key: Key, in state: inout State) -> Entry {
        if let entry = state.entries[key] { return entry }
        state.order.append(key)
        while state.order.count > Self.maximumOrigins {
            let oldest = state.order.removeFirst()
            if case .first(let waiters) = state.entries[oldest]?.gate { waiters.values.forEach { $0.resume(returning: false) } }
            state.entries[oldest] = nil
        }
        return Entry()
    }

    /// The first connection's duty: open the gate once its handshake has a session to share or
    /// will not get one. Idempotent, thread-safe.
    final class FirstHandshake: Sendable {
        private let cache: TLSSessionCache
        private let key: Key
        private let released = Atomic(false)

        init(cache: TLSSessionCache, key: Key) {
            self.cache = cache
            self.key = key
        }

        /// Opens the gate (once).
        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            cache.open(key)
        }

        deinit { release() }
    }
}

/// One `SSL_SESSION` reference, freed with its owner.
private final class StoredSession: @unchecked Sendable {
    /// Immutable once made (BoringSSL's sessions are), reference-counted atomically: safe to hand
    /// to `SSL_set_session` from any thread.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_SESSION_free(pointer) }
}
