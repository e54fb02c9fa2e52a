import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// What a request's head brings back: the head, and the whole body when it arrived in the same
/// read (a small response): the driver then writes it without another trip to the event loop.
struct ReceivedHead: Sendable {
    let head: HTTPResponseHead
    /// The complete body, when it already arrived; the connection is then idle again.
    let completeBody: [ByteBuffer]?
    /// Bytes followed the complete body on the wire: it must not be reused (the body is fine).
    let trailingGarbage: Bool
    /// The answer came before the request body was sent completely: the body was withheld (or
    /// cut short) and the connection must not be reused.
    var requestBodyWithheld = false
}

/// The last handler of a connection's pipeline: performs the actions of its
/// ``HTTP1ConnectionStateMachine``. The driver sends one request at a time and takes the
/// response in two steps — the head (a promise), then the body (into a ``BodySink``, with events
/// on an `AsyncStream`).
final class HTTPClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPClientRequestPart

    var machine: HTTP1ConnectionStateMachine
    private(set) var context: ChannelHandlerContext?
    /// Kept after the handler leaves the pipeline: a response that arrived whole can still be
    /// streamed to its sink once the connection is gone.
    private var eventLoop: EventLoop?
    private var headPromise: EventLoopPromise<ReceivedHead>?
    /// The head, held until the read that brought it completes (its body may come with it).
    private var pendingHead: HTTPResponseHead?
    private var sink: (BodySink, AsyncStream<BodyEvent>.Continuation)?
    private var idleCheck: RepeatedTask?
    /// Why the TLS layer refused the server, when our trust callback said so.
    let trustFailure: TrustFailureBox

    /// The session's rate limit: reads pause after each burst of body bytes.
    private let rateLimiter: RateLimiter?
    private var bytesSinceRead = 0
    private var delayedRead: Scheduled<Void>?
    /// The request body being sent (HTTPClientHandler+RequestBody.swift).
    var outgoing: OutgoingSend?
    /// Fires the end of the wait for `100 Continue`.
    var continueTimer: Scheduled<Void>?

    init(idleTimeout: TimeAmount, trustFailure: TrustFailureBox, rateLimiter: RateLimiter? = nil, now: NIODeadline = .now()) {
        machine = HTTP1ConnectionStateMachine(idleTimeout: idleTimeout, now: now)
        self.rateLimiter = rateLimiter
        self.trustFailure = trustFailure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.eventLoop = context.eventLoop
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        stopBody()
        self.context = nil
    }

    /// True when the connection can carry another request.
    var isReusable: Bool { machine.isIdle }

    // MARK: driver side (called on the event loop)

    /// Sends a request; the promise completes with the final response head (1xx are skipped;
    /// `100 Continue` releases a body that waits for it). `body` is written as the socket takes
    /// it (see HTTPClientHandler+RequestBody.swift); with `expectContinue` it waits for `100
    /// Continue` at most that long.
    func send(_ head: HTTPRequestHead, body: OutgoingBody? = nil, expectContinue: TimeAmount? = nil,
              progress: BodyProgress? = nil, promise: EventLoopPromise<ReceivedHead>) {
        guard let context else {
            // The pipeline is gone: say why when the machine knows (a TLS handshake that failed
            // between connecting and this request).
            promise.fail(machine.closedError ?? SessionError.connectionClosed.with("connection closed before the request was sent"))
            return
        }
        let mode: RequestBodyMode = body == nil ? .none : (expectContinue == nil ? .immediate : .expectContinue)
        let action = machine.sendRequest(now: context.eventLoop.now, body: mode)
        switch action {
        case .sendRequest:
            headPromise = promise
            startIdleCheck(context: context)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.read()
        case .sendHeadAndBody, .sendHeadAwaitingContinue:
            guard let body else { return }
            headPromise = promise
            outgoing = OutgoingSend(body, progress: progress, now: context.eventLoop.now)
            startIdleCheck(context: context)
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            context.read()
            if case .sendHeadAwaitingContinue = action, let expectContinue {
                let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
                continueTimer = context.eventLoop.scheduleTask(in: expectContinue) {
                    let this = handler.value
                    this.continueTimer = nil
                    this.perform(this.machine.continueTimedOut())
                }
            } else {
                startBody()
            }
        case .refuse(let error):
            promise.fail(error)
        default:
            promise.fail(SessionError.connectionClosed.with("connection busy"))
        }
    }

    /// Streams the body of the response whose head was delivered into a sink built from `spec`.
    func receiveBody(_ spec: SinkSpec, events: AsyncStream<BodyEvent>.Continuation) {
        guard let eventLoop else {
            events.yield(.failed(SessionError.connectionClosed.with("connection closed")))
            events.finish()
            return
        }
        sink = (spec.makeSink(eventLoop: eventLoop, events: events), events)
        perform(machine.attachSink(now: eventLoop.now))
    }

    /// The driver stopped listening to the body's events (cancelled mid-body): if the body is
    /// still streaming, its sink is abandoned now and the connection closed, so nothing more is
    /// written. A body that ended already is left alone.
    func abandonBody() {
        perform(machine.abandonBody())
    }

    /// A data consumer caught up by `count` bytes: reading resumes if it was paused.
    func acknowledge(_ count: Int) {
        guard let (sink, _) = sink, let eventLoop else { return }
        sink.acknowledge(count)
        perform(machine.sinkPaused(sink.isPaused, now: eventLoop.now))
    }

    // MARK: channel events

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = context.eventLoop.now
        switch unwrapInboundIn(data) {
        case .head(let head):
            switch machine.headReceived(head, now: now) {
            case .succeedHead(let head):
                pendingHead = head  // handed over when this read completes: its body may be here too
            case .withholdBodyAndSucceedHead(let head):
                stopBody()
                pendingHead = head
            case let action:
                perform(action)
            }
        case .body(let part):
            bytesSinceRead += part.readableBytes
            perform(machine.bodyPartReceived(part, now: now))
        case .end:
            // The head is still held until the read completes: bytes after the end in the same
            // read are garbage, and the driver must hear of them with the head.
            perform(machine.endReceived(now: now))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        deliverPendingHead()
        switch machine.readComplete() {
        case .read:
            if case .streaming = machine.state { readBody(context: context) } else { context.read() }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
            // A peer closing TCP without close_notify: framing (length, chunked) still tells a
            // complete body from a cut one, so let channelInactive decide.
            return
        }
        // An unsolicited response (NIOHTTPDecoderError) is bytes no request asked for, like
        // any other that do not parse.
        perform(machine.errorCaught(translate(error), isParseError: error is HTTPParserError || error is NIOHTTPDecoderError))
        deliverPendingHead()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { bodyWritable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(machine.channelInactive())
        stopBody()
        deliverPendingHead()
        idleCheck?.cancel()
        context.fireChannelInactive()
    }

    // MARK: performing actions

    func perform(_ action: HTTP1ConnectionStateMachine.Action) {
        switch action {
        case .none, .sendRequest, .refuse, .sendHeadAndBody, .sendHeadAwaitingContinue:
            break
        case .startBody:
            // Never from inside the response decoder (`100 Continue` arrives there): a
            // ByteToMessageHandler keeps every write made while it decodes until it is done, so a
            // body pumped from there would pile up in memory. The next loop tick is outside it.
            guard let eventLoop = context?.eventLoop else { return }
            let handler = NIOLoopBound(self, eventLoop: eventLoop)
            eventLoop.execute { handler.value.startBody() }
        case .withholdBodyAndSucceedHead(let head):
            stopBody()
            pendingHead = head
            deliverPendingHead()
        case .read:
            if let context { readBody(context: context) }
        case .succeedHead(let head):
            pendingHead = head
            deliverPendingHead()
        case .failHead(let error):
            stopBody()
            pendingHead = nil
            headPromise?.fail(error)
            headPromise = nil
            close()
        case .deliver(let parts):
            write(parts)
        case .deliverAndRead(let parts):
            if write(parts), case .streaming(paused: false) = machine.state, let context { readBody(context: context) }
        case .deliverAndFinish(let parts):
            if write(parts) { finishBody() }
        case .deliverAndFail(let parts, let error):
            if write(parts) { failBody(error) }
        case .finishBody:
            finishBody()
        case .failBody(let error):
            failBody(error)
        case .close:
            close()
        }
    }

    /// Hands the held head to the driver, with the whole body when it came in the same read.
    private func deliverPendingHead() {
        guard let head = pendingHead, let promise = headPromise else { return }
        pendingHead = nil
        headPromise = nil
        var completeBody: [ByteBuffer]?
        if case .parked(let buffered, .complete?) = machine.state, case .deliverAndFinish = machine.attachSink(now: eventLoop?.now ?? .now()) {
            completeBody = buffered
            if machine.isIdle { context?.read() }  // notice the server closing the idle connection
        }
        promise.succeed(ReceivedHead(head: head, completeBody: completeBody, trailingGarbage: machine.trailingGarbage,
                                     requestBodyWithheld: machine.requestBody == .withheld))
    }

    /// Writes parts to the sink; false when the sink failed (the body is then failed).
    @discardableResult
    private func write(_ parts: [ByteBuffer]) -> Bool {
        guard let (sink, _) = sink else { return false }
        do {
            for part in parts where try sink.write(part) == .satisfied {
                let action = machine.sinkSatisfied()
                // Parts of a body that already failed (a connection cut while the head was
                // parked) arrive with the machine closed: nothing is left to close, but the
                // satisfied sink must still end, or its reader waits forever. Found by the
                // fault soak: a segmented download hung on its first answer.
                if case .none = action { finishBody() } else { perform(action) }
                return false
            }
        } catch {
            perform(machine.errorCaught(error, isParseError: false))
            if self.sink != nil { failBody(error) }
            return false
        }
        if let eventLoop { perform(machine.sinkPaused(sink.isPaused, now: eventLoop.now)) }
        return true
    }

    private func finishBody() {
        guard let (sink, events) = sink else { return }
        self.sink = nil
        if machine.isIdle { context?.read() }  // notice the server closing the idle connection
        do {
            events.yield(.end(try sink.finish()))
        } catch {
            events.yield(.failed(error))
        }
        events.finish()
        if !machine.isIdle { close() }
    }

    private func failBody(_ error: SessionError) {
        stopIdleCheck()
        if let (sink, events) = sink {
            self.sink = nil
            sink.abandon()  // reports how much was written before the failure
            events.yield(.failed(error))
            events.finish()
        }
        close()
    }

    func close() {
        stopIdleCheck()
        stopBody()
        context?.close(promise: nil)
    }

    /// Asks for more body, after the pause the rate limit calls for.
    private func readBody(context: ChannelHandlerContext) {
        let received = bytesSinceRead
        bytesSinceRead = 0
        guard let delay = RateLimiter.pause(rateLimiter, after: received) else {
            context.read()
            return
        }
        guard delayedRead == nil else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        delayedRead = context.eventLoop.scheduleTask(in: delay) {
            let this = handler.value
            this.delayedRead = nil
            guard case .streaming(paused: false) = this.machine.state, let context = this.context else { return }
            context.read()
        }
    }

    /// Starts the periodic idle check with the connection's first request. It then runs until
    /// the connection closes: between requests the machine ignores it, and one repeated task per
    /// connection costs less than scheduling and cancelling one per request.
    private func startIdleCheck(context: ChannelHandlerContext) {
        guard idleCheck == nil else { return }
        let interval = machine.idleCheckInterval
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let this = handler.value
            guard let eventLoop = this.eventLoop else { return }
            this.perform(this.machine.idleCheck(now: eventLoop.now, reading: this.delayedRead == nil))
        }
    }

    private func stopIdleCheck() {
        idleCheck?.cancel()
        idleCheck = nil
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
            return SessionError.tlsHandshake.with("TLS handshake failed: \(TLSHandshakeFailure.describe(String(describing: error)))")
        }
        if let io = error as? IOError {
            return SessionError.connectionClosed.with("connection error: \(io.description)").errno(io.errnoCode)
        }
        return SessionError.connectionClosed.with("connection error: \(error)")
    }
}
