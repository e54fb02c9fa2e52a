import NIOConcurrencyHelpers

/// The meeting point of a protocol handler (which reports through ``ProtocolClient``) and the
/// task (which takes the response, then pulls the body): the handler's calls wait until the
/// task took what they brought, so memory stays flat whatever the handler reads from.
final class HandlerBridge: Sendable {
    /// What the task hears first.
    enum Head: Sendable {
        /// The response, with the handler's own body source when it streams the body inside a
        /// channel pipeline (built-in handlers); nil: the body comes as pieces through the bridge.
        case response(Response, (any BodySource)?)
        case redirect(Request, Response)
        /// Loading ended before a response: with an error, or nil for "finished" with nothing.
        case ended(SessionError?)
    }

    /// A piece of body and the handler's call waiting for it to be taken.
    struct Piece: Sendable {
        let bytes: [UInt8]
        let taken: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var head: Head?
        var headWaiter: CheckedContinuation<Head, Never>?
        var pieces: [Piece] = []
        var pieceWaiter: CheckedContinuation<Piece?, Never>?
        /// Set when the handler ended: nil inside for success.
        var end: SessionError??
        var cancelled = false
        /// Called once when the task stops wanting the load.
        var cancelHandlers: [@Sendable () -> Void] = []
    }

    private let state = NIOLockedValueBox(State())

    var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    // MARK: the handler's side

    func response(_ response: Response, body: (any BodySource)? = nil) async -> Bool {
        deliverHead(.response(response, body))
        return !isCancelled
    }

    /// Runs `handler` once when the task cancels the load (at once when it already did).
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { state -> Bool in
            if state.cancelled { return true }
            state.cancelHandlers.append(handler)
            return false
        }
        if now { handler() }
    }

    func redirect(_ request: Request, response: Response) {
        deliverHead(.redirect(request, response))
        end(nil)
    }

    func piece(_ bytes: [UInt8]) async {
        guard !bytes.isEmpty else { return }
        await withCheckedContinuation { (taken: CheckedContinuation<Void, Never>) in
            let (waiter, dropped) = state.withLockedValue { state -> (CheckedContinuation<Piece?, Never>?, Bool) in
                if state.cancelled || state.end != nil { return (nil, true) }
                if let waiter = state.pieceWaiter {
                    state.pieceWaiter = nil
                    return (waiter, false)
                }
                state.pieces.append(Piece(bytes: bytes, taken: taken))
                return (nil, false)
            }
            if dropped {
                taken.resume()
            } else if let waiter {
                waiter.resume(returning: Piece(bytes: bytes, taken: taken))
            }
        }
    }

    func end(_ error: SessionError?) {
        let (headWaiter, pieceWaiter) = state.withLockedValue { state -> (CheckedContinuation<Head, Never>?, CheckedContinuation<Piece?, Never>?) in
            guard state.end == nil else { return (nil, nil) }
            state.end = .some(error)
            if state.head == nil { state.head = .ended(error) }
            defer {
                state.headWaiter = nil
                state.pieceWaiter = nil
            }
            return (state.headWaiter, state.pieces.isEmpty ? state.pieceWaiter : nil)
        }
        if let headWaiter { headWaiter.resume(returning: .ended(error)) }
        pieceWaiter?.resume(returning: nil)
    }

    private func deliverHead(_ head: Head) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Head, Never>? in
            guard state.head == nil else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    // MARK: the task's side

    /// The first thing the handler reported.
    func firstEvent() async -> Head {
        await withCheckedContinuation { continuation in
            let head = state.withLockedValue { state -> Head? in
                if let head = state.head { return head }
                state.headWaiter = continuation
                return nil
            }
            if let head { continuation.resume(returning: head) }
        }
    }

    /// The next piece of body; nil at the end (see ``endError``). Resume the piece's `taken`
    /// once it is written.
    func nextPiece() async -> Piece? {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Piece?? in
                if !state.pieces.isEmpty { return .some(state.pieces.removeFirst()) }
                if state.end != nil || state.cancelled { return .some(nil) }
                state.pieceWaiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// How loading ended (nil while it goes on or when it finished well).
    var endError: SessionError? {
        state.withLockedValue { state in
            if case .some(.some(let error)) = state.end { return error }
            if state.cancelled && state.end == nil { return SessionError.cancelled }
            return nil
        }
    }

    /// The task wants nothing more: the handler's waiting calls return, later ones drop.
    func cancel() {
        let (pieces, headWaiter, pieceWaiter, handlers) = state.withLockedValue { state in
            state.cancelled = true
            defer {
                state.pieces = []
                state.headWaiter = nil
                state.pieceWaiter = nil
                state.cancelHandlers = []
            }
            return (state.pieces, state.headWaiter, state.pieceWaiter, state.cancelHandlers)
        }
        handlers.forEach { $0() }
        pieces.forEach { $0.taken?.resume() }
        headWaiter?.resume(returning: .ended(SessionError.cancelled))
        pieceWaiter?.resume(returning: nil)
    }
}
