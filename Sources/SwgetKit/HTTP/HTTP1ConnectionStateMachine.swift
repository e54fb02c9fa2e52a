import NIOCore
import NIOHTTP1

/// The life of one HTTP/1.1 connection as a value: which request is out, where the response's
/// parts go, when to read, and when the server has been silent too long. ``HTTPClientHandler``
/// feeds it channel events and performs the actions; the machine holds no channel, so it is
/// tested by tables (HTTP1ConnectionStateMachineTests) and the handler with `EmbeddedChannel`.
///
/// ```
/// idle ──send──► awaitingHead ──head──► parked ──attachSink──► streaming ──end──► idle
///   ▲                                     │ (body parts buffered          │
///   └──────────────── end ◄───────────────┘  until the driver asks)       └─ fail ─► closed
/// ```
///
/// - The channel runs with autoRead off: the machine asks for every read, so nothing is read
///   while the driver decides what to do with a head, or while a data consumer is behind.
/// - Idle read timeout: while a request waits for its head or a body streams, a check every
///   ``idleCheckInterval`` fails the connection after ``idleTimeout`` without a byte. Time in
///   which the connection was not reading (the driver deciding, a paused consumer, a rate-limit
///   pause) is not the server's silence, and neither is a check that runs late (the event loop
///   was busy: bytes may be waiting unread).
/// - A body that ended is complete even when garbage follows it on the wire (bytes after a
///   `Content-Length`, a 204 with a body): the body is kept, the connection is never reused.
/// - The request body has a phase of its own (``RequestBodyPhase``, in
///   HTTP1ConnectionStateMachine+RequestBody.swift): sent at once, or held back for `100
///   Continue` (RFC 9110 §10.1.1), and withheld or cut short when a final answer comes first.
///   While it is being sent, every chunk the socket takes counts as activity for the idle check.
struct HTTP1ConnectionStateMachine {
    enum State {
        case idle
        case awaitingHead
        /// Head delivered; parts that came with it wait for a sink, with how the body ended if
        /// it already did.
        case parked(buffered: [ByteBuffer], end: BodyEnd?)
        case streaming(paused: Bool)
        case closed(SessionError)
    }

    enum BodyEnd {
        case complete
        case failed(SessionError)
    }

    enum Action {
        case none
        /// Write the request (head, no body) and read.
        case sendRequest
        /// Write the head, start sending the body, and read.
        case sendHeadAndBody
        /// Write the head (with `Expect: 100-continue`), start the continue timer, and read;
        /// the body waits for ``startBody``.
        case sendHeadAwaitingContinue
        /// `100 Continue` came, or the wait ended: start sending the body.
        case startBody
        /// A final answer came before the body was sent completely: stop sending it (or never
        /// start), then hand the head to the driver. The connection closes after the answer.
        case withholdBodyAndSucceedHead(HTTPResponseHead)
        case read
        /// Hand the head to the waiting driver.
        case succeedHead(HTTPResponseHead)
        case failHead(SessionError)
        /// Give these parts to the sink (in order).
        case deliver([ByteBuffer])
        /// Give the parts that waited for the sink, then read on (unless the sink pauses).
        case deliverAndRead([ByteBuffer])
        /// Give the parts, then finish the body.
        case deliverAndFinish([ByteBuffer])
        /// Give the parts, then fail the body with the error and close.
        case deliverAndFail([ByteBuffer], SessionError)
        /// The body ended: finish the sink; read on to notice the server closing the idle connection.
        case finishBody
        /// The body failed: abandon the sink, report the error, close the channel.
        case failBody(SessionError)
        /// The request was refused locally (connection busy or closed).
        case refuse(SessionError)
        case close
    }

    let idleTimeout: TimeAmount
    private(set) var state = State.idle
    /// Where the request body of the request under way is.
    /// (Set by the machine only, here and in HTTP1ConnectionStateMachine+RequestBody.swift.)
    var requestBody = RequestBodyPhase.none
    /// The request under way carries a body (its failures say so, whatever the phase).
    private(set) var carriesBody = false
    /// The connection must not carry another request (bytes after a body, a failure).
    private(set) var isPoisoned = false
    /// Set when garbage followed a complete body; the driver warns once.
    private(set) var trailingGarbage = false
    private var lastActivity: NIODeadline
    private var lastCheck: NIODeadline

    init(idleTimeout: TimeAmount, now: NIODeadline) {
        self.idleTimeout = idleTimeout
        lastActivity = now
        lastCheck = now
    }

    /// How often the idle check runs: a quarter of the timeout, at least every 10 ms.
    var idleCheckInterval: TimeAmount { .nanoseconds(max(idleTimeout.nanoseconds / 4, 10_000_000)) }

    /// Why the connection closed, once it did.
    var closedError: SessionError? {
        if case .closed(let error) = state { return error }
        return nil
    }

    /// True while the connection can take a request.
    var isIdle: Bool {
        if case .idle = state { return !isPoisoned && requestBody == .none }
        return false
    }

    // MARK: driver events

    /// The driver sends a request; `body` says whether a body follows and whether it waits for
    /// `100 Continue`.
    mutating func sendRequest(now: NIODeadline, body: RequestBodyMode = .none) -> Action {
        switch state {
        case .idle where !isPoisoned:
            state = .awaitingHead
            lastActivity = now
            lastCheck = now
            carriesBody = body != .none
            switch body {
            case .none:
                requestBody = .none
                return .sendRequest
            case .immediate:
                requestBody = .sending
                return .sendHeadAndBody
            case .expectContinue:
                requestBody = .awaitingContinue
                return .sendHeadAwaitingContinue
            }
        case .closed(let error):
            return .refuse(error)
        default:
            return .refuse(SessionError.connectionClosed.with("connection busy"))
        }
    }

    /// The driver wants the body of the response whose head it got.
    mutating func attachSink(now: NIODeadline) -> Action {
        switch state {
        case .parked(let buffered, let end):
            lastActivity = now  // time parked was the driver's, not the server's silence
            switch end {
            case .complete:
                state = .idle
                return .deliverAndFinish(buffered)
            case .failed(let error):
                state = .closed(error)
                return .deliverAndFail(buffered, error)
            case nil:
                state = .streaming(paused: false)
                return buffered.isEmpty ? .read : .deliverAndRead(buffered)
            }
        case .closed(let error):
            return .failBody(error)
        default:
            return .failBody(SessionError.badResponse.with("no response to read"))
        }
    }

    /// The driver stopped listening mid-body: the body is abandoned and the connection closed.
    mutating func abandonBody() -> Action {
        guard case .streaming = state else { return .none }
        return fail(SessionError.cancelled.with("the transfer stopped listening to the body"))
    }

    /// The sink took all it wants (a segment reached its end): the rest of the body is left
    /// unread and the connection closes after the body is finished.
    mutating func sinkSatisfied() -> Action {
        switch state {
        case .streaming, .idle:
            state = .closed(SessionError.connectionClosed.with("the rest of the body was not read"))
            isPoisoned = true
            return .finishBody
        default:
            return .none
        }
    }

    /// The sink's backpressure changed (a data consumer fell behind or caught up).
    mutating func sinkPaused(_ paused: Bool, now: NIODeadline) -> Action {
        guard case .streaming(let wasPaused) = state, wasPaused != paused else { return .none }
        state = .streaming(paused: paused)
        if !paused {
            lastActivity = now  // the pause was the consumer's
            return .read
        }
        return .none
    }

    // MARK: channel events

    mutating func headReceived(_ head: HTTPResponseHead, now: NIODeadline) -> Action {
        lastActivity = now
        guard case .awaitingHead = state else {
            // Bytes nobody asked for: the connection cannot be trusted with a request.
            return unexpectedBytes()
        }
        if Self.isInformational(head.status.code) {
            // 1xx heads come before the final one (the decoder forwards them): only `100
            // Continue` means something, and only to a body that waits for it.
            return continueReceived(status: head.status.code)
        }
        state = .parked(buffered: [], end: nil)
        if requestBody.isUnfinished {
            return finalAnswerBeforeBody(head)
        }
        return .succeedHead(head)
    }

    mutating func bodyPartReceived(_ part: ByteBuffer, now: NIODeadline) -> Action {
        lastActivity = now
        switch state {
        case .parked(var buffered, nil):
            state = .idle  // no copy-on-write of the array
            buffered.append(part)
            state = .parked(buffered: buffered, end: nil)
            return .none
        case .streaming:
            return .deliver([part])
        default:
            return unexpectedBytes()
        }
    }

    mutating func endReceived(now: NIODeadline) -> Action {
        lastActivity = now
        switch state {
        case .parked(let buffered, nil):
            state = .parked(buffered: buffered, end: .complete)
            return .none
        case .streaming:
            state = .idle
            return .finishBody
        default:
            return unexpectedBytes()
        }
    }

    /// A read completed: read on when someone waits for bytes and nothing holds them back.
    mutating func readComplete() -> Action {
        switch state {
        case .awaitingHead, .streaming(paused: false): .read
        case .idle: isPoisoned ? .none : .read
        default: .none
        }
    }

    /// The pipeline failed. `isParseError`: the bytes did not parse as HTTP (after a complete
    /// body that is garbage following it, not a broken body).
    mutating func errorCaught(_ error: SessionError, isParseError: Bool) -> Action {
        switch state {
        case .idle, .parked(_, .complete?):
            if isParseError { return unexpectedBytes() }
            isPoisoned = true
            if case .idle = state { state = .closed(error) }
            return .close
        case .awaitingHead where requestBody == .sending:
            return fail(error.with("the connection failed while the request body was being sent (\(error.message))"))
        case .awaitingHead where carriesBody:
            // The last bytes may still have been in the socket's buffers: the server got them or not.
            return fail(error.with("the connection failed after the request body was sent, without a response (\(error.message))"))
        default:
            return fail(error)
        }
    }

    mutating func channelInactive() -> Action {
        let closed = SessionError.connectionClosed
        switch state {
        case .awaitingHead where requestBody.isUnfinished:
            return fail(closed.with("the server closed the connection while the request body was being sent"))
        case .awaitingHead where carriesBody:
            return fail(closed.with("the server closed the connection after the request body was sent, without a response"))
        case .awaitingHead:
            return fail(closed.with("server closed the connection without a response"))
        case .streaming:
            return fail(closed.with("connection closed before the body was complete"))
        case .parked(let buffered, nil):
            // Keep what arrived: the driver writes it, then sees the failure.
            state = .parked(buffered: buffered, end: .failed(closed.with("connection closed before the body was complete")))
            isPoisoned = true
            return .none
        case .parked(_, .some):
            isPoisoned = true
            return .none
        case .idle:
            state = .closed(closed.with("connection closed"))
            return .none
        case .closed:
            return .none
        }
    }

    /// The periodic idle check. `reading` is false while a rate-limit pause holds reads back.
    mutating func idleCheck(now: NIODeadline, reading: Bool = true) -> Action {
        defer { lastCheck = now }
        if now - lastCheck > idleCheckInterval * 2 {
            // This check ran late: the event loop was busy, so bytes may be waiting unread.
            lastActivity = now
            return .none
        }
        switch state {
        case .awaitingHead, .streaming(paused: false):
            guard reading else {
                lastActivity = now
                return .none
            }
            guard now - lastActivity >= idleTimeout else { return .none }
            let seconds = Double(idleTimeout.nanoseconds) / 1e9
            if requestBody == .sending {
                return fail(SessionError.readTimedOut.with("the server took no request body bytes for \(seconds.formatted1) s"))
            }
            return fail(SessionError.readTimedOut.with("no data received for \(seconds.formatted1) s"))
        case .streaming(paused: true):
            lastActivity = now
            return .none
        default:
            return .none
        }
    }

    /// True while the idle check must run (a request or body is under way).
    var needsIdleCheck: Bool {
        switch state {
        case .awaitingHead, .streaming: true
        default: false
        }
    }

    // MARK: helpers

    /// Something moved on the connection (for the idle check).
    mutating func noteActivity(_ now: NIODeadline) {
        lastActivity = now
    }

    /// The connection must not carry another request.
    mutating func poison() {
        isPoisoned = true
    }

    mutating func fail(_ error: SessionError) -> Action {
        let previous = state
        state = .closed(error)
        isPoisoned = true
        if requestBody.isUnfinished { requestBody = .withheld }
        switch previous {
        case .awaitingHead: return .failHead(error)
        case .streaming: return .failBody(error)
        case .parked(let buffered, let end):
            // What arrived stays deliverable, with the first way the body ended: a later error
            // (after the close, say) neither drops the parts nor replaces the reason.
            state = .parked(buffered: buffered, end: end ?? .failed(error))
            return .close
        default: return .close
        }
    }

    /// Bytes (or an error) after a response ended, or before a request: never reuse this
    /// connection. A complete body that is still parked stays deliverable.
    private mutating func unexpectedBytes() -> Action {
        isPoisoned = true
        switch state {
        case .parked(_, .complete?):
            trailingGarbage = true
            return .close
        case .idle:
            trailingGarbage = true
            state = .closed(SessionError.badResponse.with("unexpected bytes on an idle connection"))
            return .close
        default:
            return fail(SessionError.badResponse.with("unexpected response data"))
        }
    }
}
