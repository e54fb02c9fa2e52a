import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// The last handler of a connection's pipeline: sends one request at a time and hands the
/// response to the task driver in two steps — the head (through a promise), then the body
/// (into a ``BodySink``, with events on an `AsyncStream`).
///
/// The channel runs with `autoRead` off: this handler asks for each read, so it stops reading
/// while the driver decides what to do with a head, and while a data consumer is behind.
final class HTTPClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPClientRequestPart

    private enum State {
        case idle
        case awaitingHead(EventLoopPromise<HTTPResponseHead>)
        /// Head delivered; body parts that came with it wait here for a sink, with how the
        /// body ended if it already did (a cut body still delivers what arrived, then fails).
        case parked(buffered: [ByteBuffer], end: ParkedEnd?)
        case streaming(BodySink, AsyncStream<BodyEvent>.Continuation)
        case closed(SessionError)
    }

    private enum ParkedEnd {
        case complete
        case failed(SessionError)
    }

    private var state = State.idle
    private var context: ChannelHandlerContext?
    private let idleTimeout: TimeAmount
    private var lastActivity = NIODeadline.now()
    private var idleCheck: RepeatedTask?
    /// When the idle check last ran.
    private var lastIdleCheck = NIODeadline.now()
    /// How often the idle check runs: a quarter of the timeout, at least every 10 ms.
    private var idleCheckInterval: TimeAmount { .nanoseconds(max(idleTimeout.nanoseconds / 4, 10_000_000)) }
    /// Why the TLS layer refused the server, when our trust callback said so.
    let trustFailure: TrustFailureBox

    /// The session's rate limit: reads pause after each burst of body bytes.
    private let rateLimiter: RateLimiter?
    /// Body bytes received since the last read was asked for.
    private var bytesSinceRead = 0
    private var delayedRead: Scheduled<Void>?

    init(idleTimeout: TimeAmount, trustFailure: TrustFailureBox, rateLimiter: RateLimiter? = nil) {
        self.rateLimiter = rateLimiter
        self.idleTimeout = idleTimeout
        self.trustFailure = trustFailure
    }

    /// Kept after the handler leaves the pipeline: a response that arrived whole can still be
    /// streamed to its sink once the connection is gone.
    private var eventLoop: EventLoop?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.eventLoop = context.eventLoop
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        self.context = nil
    }

    // MARK: driver side (called on the event loop)

    /// Sends a request; the promise completes with the response head (1xx are skipped).
    func send(_ head: HTTPRequestHead, body: [UInt8]?, promise: EventLoopPromise<HTTPResponseHead>) {
        guard let context else {
            promise.fail(SessionError.connectionClosed.with("connection closed before the request was sent"))
            return
        }
        switch state {
        case .idle:
            break
        case .closed(let error):
            promise.fail(error)
            return
        default:
            promise.fail(SessionError.badResponse.with("connection busy"))
            return
        }
        state = .awaitingHead(promise)
        startIdleCheck(context: context)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.read()
    }

    /// Streams the body of the response whose head was delivered into a sink built from `spec`.
    func receiveBody(_ spec: SinkSpec, events: AsyncStream<BodyEvent>.Continuation) {
        guard case .parked(let buffered, let end) = state else {
            if case .closed(let error) = state { events.yield(.failed(error)) } else {
                events.yield(.failed(SessionError.badResponse.with("no response to read")))
            }
            events.finish()
            return
        }
        guard let eventLoop else {
            events.yield(.failed(SessionError.connectionClosed.with("connection closed")))
            events.finish()
            return
        }
        let sink = spec.makeSink(eventLoop: eventLoop, events: events)
        state = .streaming(sink, events)
        // Time parked before the driver asked for the body was ours, not the server's silence.
        lastActivity = .now()
        do {
            for part in buffered { try sink.write(part) }
        } catch {
            fail(error, context: context)
            return
        }
        switch end {
        case .complete: finishBody()
        case .failed(let error): fail(error, context: context)
        case nil: if !sink.isPaused { context?.read() }
        }
    }

    /// The driver stopped listening to the body's events (cancelled mid-body): if the body is
    /// still streaming, its sink is abandoned now and the connection closed, so nothing more is
    /// written. A body that ended already is left alone.
    func abandonBody() {
        guard case .streaming = state else { return }
        fail(SessionError.cancelled.with("the transfer stopped listening to the body"), context: context)
    }

    /// A data consumer caught up by `count` bytes: reading resumes if it was paused.
    func acknowledge(_ count: Int) {
        guard case .streaming(let sink, _) = state, let context else { return }
        let wasPaused = sink.isPaused
        sink.acknowledge(count)
        if wasPaused && !sink.isPaused {
            lastActivity = .now()  // the pause was the consumer's
            context.read()
        }
    }

    // MARK: channel events

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard case .awaitingHead(let promise) = state else {
                // Bytes on an idle connection: it can no longer be trusted for a request.
                fail(SessionError.badResponse.with("unexpected response"), context: context)
                return
            }
            state = .parked(buffered: [], end: nil)
            promise.succeed(head)
        case .body(let part):
            bytesSinceRead += part.readableBytes
            switch state {
            case .parked(var buffered, let end):
                state = .idle  // avoid a copy-on-write of the array
                buffered.append(part)
                state = .parked(buffered: buffered, end: end)
            case .streaming(let sink, _):
                do { try sink.write(part) } catch { fail(error, context: context) }
            default:
                break
            }
        case .end:
            switch state {
            case .parked(let buffered, _):
                state = .parked(buffered: buffered, end: .complete)
            case .streaming:
                finishBody()
            default:
                break
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        switch state {
        case .awaitingHead:
            context.read()
        case .streaming(let sink, _) where !sink.isPaused:
            readBody(context: context)
        case .idle:
            context.read()
        default:
            break
        }
    }

    /// Asks for more body, after the pause the rate limit calls for.
    private func readBody(context: ChannelHandlerContext) {
        let received = bytesSinceRead
        bytesSinceRead = 0
        guard let rateLimiter, received > 0 else {
            context.read()
            return
        }
        let delay = rateLimiter.delay(after: received)
        guard delay > .zero else {
            context.read()
            return
        }
        guard delayedRead == nil else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        delayedRead = context.eventLoop.scheduleTask(in: delay) {
            handler.value.delayedRead = nil
            guard case .streaming(let sink, _) = handler.value.state, !sink.isPaused, let context = handler.value.context else { return }
            handler.value.lastActivity = .now()  // the pause is ours, not the server's silence
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
            // A peer closing TCP without close_notify: framing (length, chunked) still tells a
            // complete body from a cut one, so let channelInactive decide.
            return
        }
        fail(translate(error), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch state {
        case .awaitingHead:
            fail(SessionError.connectionClosed.with("server closed the connection without a response"), context: context)
        case .streaming:
            fail(SessionError.connectionClosed.with("connection closed before the body was complete"), context: context)
        case .parked(let buffered, nil):
            // Keep what arrived: the driver writes it, then sees the failure.
            state = .parked(buffered: buffered, end: .failed(
                SessionError.connectionClosed.with("connection closed before the body was complete")))
        case .parked(_, .some):
            break  // the driver can still take the response (complete, or with its error)
        default:
            state = .closed(SessionError.connectionClosed.with("connection closed"))
        }
        idleCheck?.cancel()
        context.fireChannelInactive()
    }

    // MARK: helpers

    private func finishBody() {
        guard case .streaming(let sink, let events) = state else { return }
        idleCheck?.cancel()
        idleCheck = nil
        state = .idle
        // Keep reading while idle in the pool: a server closing the connection (FIN, TLS
        // close_notify) is noticed at once instead of on the next request.
        context?.read()
        do {
            let (received, decoded) = try sink.finish()
            events.yield(.end(bytes: received, decoded: decoded))
        } catch {
            events.yield(.failed(error))
        }
        events.finish()
    }

    private func fail(_ error: SessionError, context: ChannelHandlerContext?) {
        let previous = state
        state = .closed(error)
        idleCheck?.cancel()
        switch previous {
        case .awaitingHead(let promise):
            promise.fail(error)
        case .streaming(let sink, let events):
            sink.abandon()  // reports how much was written before the failure
            events.yield(.failed(error))
            events.finish()
        case .parked(let buffered, nil):
            // Keep what arrived for the driver; it sees this error after writing it.
            state = .parked(buffered: buffered, end: .failed(error))
        default:
            break
        }
        context?.close(promise: nil)
    }

    private func startIdleCheck(context: ChannelHandlerContext) {
        lastActivity = .now()
        lastIdleCheck = lastActivity
        guard idleCheck == nil else { return }
        let interval = idleCheckInterval
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            loopBound.value.checkIdle()
        }
    }

    private func checkIdle() {
        guard let context else { return }
        let now = NIODeadline.now()
        defer { lastIdleCheck = now }
        if now - lastIdleCheck > idleCheckInterval * 2 {
            // This check ran late: the event loop was busy (or the process starved), so bytes may
            // be waiting unread in the socket. That time was ours, not the server's silence.
            lastActivity = now
            return
        }
        switch state {
        case .streaming(let sink, _) where sink.isPaused || delayedRead != nil:
            break  // not reading: a slow consumer or the rate limit, not a silent server
        case .awaitingHead, .streaming:
            if now - lastActivity >= idleTimeout {
                let seconds = Double(idleTimeout.nanoseconds) / 1e9
                fail(SessionError.readTimedOut.with("no data received for \(seconds.formatted1) s"), context: context)
            }
        default:
            break
        }
    }

    private func translate(_ error: Error) -> SessionError {
        if let error = error as? SessionError { return error }
        if let parser = error as? HTTPParserError {
            switch parser {
            case .headerOverflow:
                return SessionError.headersTooLarge.with("response headers too large")
            case .invalidEOFState:
                return SessionError.connectionClosed.with("connection closed before the body was complete")
            default:
                return SessionError.badResponse.with("malformed HTTP response (\(parser))")
            }
        }
        if let reason = trustFailure.reason {
            return SessionError.tlsUntrusted.with("certificate not trusted: \(reason)")
        }
        if error is NIOSSLError || error is BoringSSLError {
            return SessionError.tlsHandshake.with("TLS handshake failed: \(error)")
        }
        if let io = error as? IOError {
            return SessionError.connectionClosed.with("connection error: \(io.description)")
        }
        return SessionError.connectionClosed.with("connection error: \(error)")
    }
}

/// Carries the trust callback's verdict to the handler so a refused handshake is reported with
/// its reason rather than as a generic TLS alert.
final class TrustFailureBox: Sendable {
    private let storage = NIOLockedValueBox<String?>(nil)
    var reason: String? { storage.withLockedValue { $0 } }
    func record(_ reason: String) { storage.withLockedValue { $0 = reason } }
}

extension Double {
    /// One decimal place, without Foundation's formatters.
    var formatted1: String {
        let tenths = (self * 10).rounded()
        let whole = Int(tenths / 10), fraction = Int(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return "\(whole).\(fraction)"
    }
}
