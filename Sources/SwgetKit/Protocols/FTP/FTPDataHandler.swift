import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The last handler of an FTP data connection (`[TLS] → this`): the body's hot path. Bytes go
/// straight from the socket into the task's ``BodySink`` on the event loop (a file written with
/// `write(2)`, as the HTTP handler does), or into a bounded buffer for a listing.
///
/// The channel reads only when asked (autoRead off): nothing is read before a consumer is
/// attached, except what a TLS handshake brings, which is held. The connection's end (EOF) is
/// reported to the driver (``FTPControlMachine/Event/dataConnectionClosed(receivedBytes:)``), but
/// the body ends only when the driver says so (``finish()``/``fail(_:)``): a transfer is complete
/// only once the server's final reply confirms it (RFC 959: 226 after the data connection closes).
///
/// Silence while reading for longer than the idle timeout posts
/// ``FTPControlMachine/Event/timedOut(_:)`` (`.data`) and closes the connection; time spent
/// paused (a slow data consumer, a rate-limit pause) is not silence.
final class FTPDataHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Where the bytes go.
    enum Consumer {
        /// The task's sink, and its event stream.
        case sink(BodySink, AsyncStream<BodyEvent>.Continuation)
        /// A listing: kept in memory up to `limit` bytes.
        case collect(limit: Int)
    }

    /// Configuration of one data connection.
    struct Settings: Sendable {
        /// Longest silence while reading.
        var idleTimeout: TimeAmount
        /// The session's rate limit, shared by all connections.
        var rateLimiter: RateLimiter?
        /// A TLS handler sits before this one (its handshake needs a first read).
        var tls: Bool
    }

    private let link: Int
    private let mailbox: FTPMailbox
    private let settings: Settings
    /// Why the TLS layer refused the server, when the trust callback said so.
    let trustFailure: TrustFailureBox
    private var context: ChannelHandlerContext?
    private var consumer: Consumer?
    private var held: [ByteBuffer] = []
    /// A listing's bytes (``Consumer/collect(limit:)``).
    private(set) var collected: [UInt8] = []
    private var received: Int64 = 0
    private var ended = false
    private var released = false
    /// The driver's verdict when it came before a consumer.
    private var verdict: SessionError??
    /// A failure to report once the connection has delivered what it still carries.
    private var failureAtEnd: SessionError?
    private var lastRead = NIODeadline.now()
    private var lastCheck = NIODeadline.now()
    private var idleCheck: RepeatedTask?
    private var bytesSinceRead = 0
    private var delayedRead: Scheduled<Void>?

    /// A handler for data connection number `link`, reporting to `mailbox`.
    init(link: Int, mailbox: FTPMailbox, settings: Settings, trustFailure: TrustFailureBox) {
        self.link = link
        self.mailbox = mailbox
        self.settings = settings
        self.trustFailure = trustFailure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopChecks()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        mailbox.post(.event(.dataConnectionOpened, dataLink: link))
        // The TLS handshake needs reads; its first application bytes are held.
        if settings.tls { context.read() }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        received += Int64(part.readableBytes)
        bytesSinceRead += part.readableBytes
        lastRead = context.eventLoop.now
        if consumer == nil {
            held.append(part)
        } else {
            deliver(part)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if consumer != nil, !ended, !isPaused { readMore(context: context) }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl { return }  // EOF comes next; the reply judges
        let failure = FTPTransportError.translate(error, trustFailure: trustFailure)
        mailbox.post(.event(.dataConnectionFailed(failure.message), dataLink: link))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended = true
        stopChecks()
        mailbox.post(.event(.dataConnectionClosed(receivedBytes: received), dataLink: link))
        if let failureAtEnd, consumer != nil { conclude(failureAtEnd) }
        context.fireChannelInactive()
    }

    // MARK: the driver's side (on the event loop)

    /// Starts delivering to `consumer`: held bytes first, then reads.
    func attach(_ consumer: Consumer) {
        guard self.consumer == nil, !released else {
            if case .sink(_, let events) = consumer {
                events.yield(.failed(SessionError.connectionClosed.with("the data connection is gone")))
                events.finish()
            }
            return
        }
        self.consumer = consumer
        let parts = held
        held = []
        for part in parts where self.consumer != nil { deliver(part) }
        if let verdict {
            conclude(verdict)
            return
        }
        if ended, let failureAtEnd {
            conclude(failureAtEnd)
            return
        }
        guard let context, !ended else { return }
        lastRead = context.eventLoop.now
        startIdleCheck(context: context)
        if !isPaused { readMore(context: context) }
    }

    /// The transfer is confirmed complete: the sink is flushed and its events end.
    func finish() {
        guard consumer != nil else {
            verdict = .some(nil)
            return
        }
        conclude(nil)
    }

    /// The transfer failed: the sink reports what it wrote and the error; the connection closes.
    func fail(_ error: SessionError) {
        guard consumer != nil else {
            verdict = .some(error)
            context?.close(promise: nil)
            return
        }
        conclude(error)
    }

    /// The transfer failed (a 426 after the server closed the connection, say), but the bytes
    /// the connection still carries are good: they are read to its end (or its idle timeout)
    /// and kept, then the failure is reported. A resume continues after them.
    func failAfterEnd(_ error: SessionError) {
        guard !ended else { return fail(error) }
        failureAtEnd = error
    }

    /// The task stopped listening (cancelled mid-body): nothing more is written; the connection
    /// closes.
    func abandon() {
        released = true
        if case .sink(let sink, let events) = consumer {
            sink.abandon()
            events.finish()
        }
        consumer = nil
        held = []
        stopChecks()
        context?.close(promise: nil)
    }

    /// A data consumer caught up by `count` bytes.
    func acknowledge(_ count: Int) {
        guard case .sink(let sink, _) = consumer else { return }
        sink.acknowledge(count)
        if !isPaused, !ended, let context {
            lastRead = context.eventLoop.now
            readMore(context: context)
        }
    }

    // MARK: internals

    private var isPaused: Bool {
        if case .sink(let sink, _) = consumer { return sink.isPaused }
        return false
    }

    private func deliver(_ part: ByteBuffer) {
        switch consumer {
        case .sink(let sink, let events):
            do {
                _ = try sink.write(part)
            } catch {
                sink.abandon()
                events.yield(.failed(error))
                events.finish()
                consumer = nil
                released = true
                mailbox.post(.event(.dataConnectionFailed(error.message), dataLink: link))
                context?.close(promise: nil)
            }
        case .collect(let limit):
            guard collected.count + part.readableBytes <= limit else {
                consumer = nil
                released = true
                mailbox.post(.event(.listingTooLarge(limit: limit), dataLink: link))
                context?.close(promise: nil)
                return
            }
            collected.append(contentsOf: part.readableBytesView)
        case nil:
            held.append(part)
        }
    }

    private func conclude(_ error: SessionError?) {
        stopChecks()
        if case .sink(let sink, let events) = consumer {
            if let error {
                sink.abandon()
                events.yield(.failed(error))
            } else {
                do {
                    events.yield(.end(try sink.finish()))
                } catch {
                    events.yield(.failed(error))
                }
            }
            events.finish()
            consumer = nil
        }
        released = true
        context?.close(promise: nil)
    }

    /// Asks for more, after the pause the session's rate limit calls for.
    private func readMore(context: ChannelHandlerContext) {
        let count = bytesSinceRead
        bytesSinceRead = 0
        guard let delay = RateLimiter.pause(settings.rateLimiter, after: count) else {
            context.read()
            return
        }
        guard delayedRead == nil else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        delayedRead = context.eventLoop.scheduleTask(in: delay) {
            let this = handler.value
            this.delayedRead = nil
            guard let context = this.context, this.consumer != nil, !this.ended, !this.isPaused else { return }
            this.lastRead = context.eventLoop.now
            context.read()
        }
    }

    private func startIdleCheck(context: ChannelHandlerContext) {
        guard idleCheck == nil else { return }
        let interval = TimeAmount.nanoseconds(max(settings.idleTimeout.nanoseconds / 4, 10_000_000))
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        lastCheck = context.eventLoop.now
        idleCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            handler.value.checkIdle(interval: interval)
        }
    }

    private func checkIdle(interval: TimeAmount) {
        guard let context else { return }
        let now = context.eventLoop.now
        defer { lastCheck = now }
        // Not reading (paused, rate-limited), or a check that runs late (a busy loop may have
        // bytes waiting unread): not the server's silence.
        if isPaused || delayedRead != nil || now - lastCheck > interval * 2 {
            lastRead = now
            return
        }
        guard !ended, now - lastRead >= settings.idleTimeout else { return }
        stopChecks()
        mailbox.post(.event(.timedOut(.data), dataLink: link))
        context.close(promise: nil)
    }

    private func stopChecks() {
        idleCheck?.cancel()
        idleCheck = nil
        delayedRead?.cancel()
        delayedRead = nil
    }
}
