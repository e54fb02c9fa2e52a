import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/1.1 connection (TCP, optionally TLS) to an origin: a NIO channel whose pipeline is
/// `[TLS] → HTTPRequestEncoder → HTTPResponseDecoder → HTTPClientHandler`.
///
/// The driver uses it from async code; every call hops onto the channel's event loop.
final class HTTPConnection: Sendable {
    /// Unique in the process: the pool's name for this connection.
    let id: Int
    let channel: Channel
    let origin: Origin
    private let handler: NIOLoopBound<HTTPClientHandler>
    private let idle = NIOLockedValueBox(IdleTimer())

    private static let nextID = Atomic<Int>(0)

    /// The proxy's answer to CONNECT, for a connection through an HTTP proxy's tunnel.
    let tunnelResponse: Response?

    /// An end of the connection as the task's metrics show it.
    struct Endpoint: Sendable {
        let ip: String?
        let port: Int?
        init(_ address: SocketAddress?) {
            ip = address?.ipAddress
            port = address?.port
        }
    }

    /// The peer and our own end, read once: every request on the connection records them, and
    /// each read formatted the address anew (~3,000 instructions per request of a batch).
    let remote: Endpoint
    let local: Endpoint

    init(channel: Channel, origin: Origin, handler: NIOLoopBound<HTTPClientHandler>, tunnelResponse: Response? = nil) {
        self.tunnelResponse = tunnelResponse
        self.id = Self.nextID.add(1, ordering: .relaxed).newValue
        self.channel = channel
        self.origin = origin
        self.handler = handler
        self.remote = Endpoint(channel.remoteAddress)
        self.local = Endpoint(channel.localAddress)
    }

    var isActive: Bool { channel.isActive }

    /// Per-connection inputs that come from the session.
    struct Settings: Sendable {
        var connectTimeout: TimeAmount
        var idleReadTimeout: TimeAmount
        var receiveBufferSize: Int
        var maxHeaderBytes: Int
        /// nil for plain http.
        var tls: TLSConnector?
        /// The largest socket read. Over TLS each read is also decrypted into a buffer of its
        /// own, so reads stay at 256 KiB there (1 MiB reads cost ~10 MB more RSS for no speed).
        var maximumRead: Int {
            let size = tls == nil ? receiveBufferSize : min(receiveBufferSize, 256 * 1024)
            return rateLimiter?.readSize(upTo: size) ?? size
        }
        /// Socket reads per readiness event. Under a rate limit every read is paid for before
        /// the next: one. Over TLS one too: NIOSSL decrypts everything read in one event loop
        /// tick into one buffer before passing it on, so four reads of 256 KiB grew a 2 MiB
        /// buffer per connection (`--split 8` over HTTPS peaked at 48–58 MB).
        var readsPerWakeUp: UInt { Self.readsPerWakeUp(tls: tls != nil, rateLimited: rateLimiter != nil) }
        static func readsPerWakeUp(tls: Bool, rateLimited: Bool) -> UInt { tls || rateLimited ? 1 : 4 }
        /// The session's rate limit, shared by all its connections; nil for none.
        var rateLimiter: RateLimiter?
        /// The proxy the connection goes through, if any.
        var route: ProxyRoute?
        var addressFamily = AddressFamily.any
        /// The local address to connect from; nil for the system's choice.
        var localAddress: SocketAddress?
        /// The longest name lookup; nil for the system's own limits.
        var dnsTimeout: TimeAmount?

        /// A bootstrap with these settings' socket options, family, lookup limit and local
        /// address; `lookupEnded` (for the task's metrics) asks for a timed lookup.
        func bootstrap(on eventLoop: EventLoop, lookupEnded: (@Sendable () -> Void)? = nil) -> ClientBootstrap {
            var bootstrap = ClientBootstrap(group: eventLoop)
                .connectTimeout(connectTimeout)
                .channelOption(.autoRead, value: false)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(
                    minimum: 1024, initial: min(64 * 1024, maximumRead), maximum: maximumRead))
                .channelOption(.maxMessagesPerRead, value: readsPerWakeUp)
            if let resolver = resolver(on: eventLoop, lookupEnded: lookupEnded) { bootstrap = bootstrap.resolver(resolver) }
            if let localAddress { bootstrap = bootstrap.bind(to: localAddress) }
            return bootstrap
        }

        /// The resolver for these settings: one address family only (`-4`/`-6`), or a lookup
        /// that says when it ended (for the task's metrics: a ``TimedResolver`` holds promises
        /// from its creation, so it is made only for a name NIO will look up), bounded by
        /// ``dnsTimeout``; nil for NIO's own.
        func resolver(on eventLoop: EventLoop, lookupEnded: (@Sendable () -> Void)?) -> (any Resolver & Sendable)? {
            var resolver: (any Resolver & Sendable)?
            if addressFamily != .any {
                resolver = AddressFamilyResolver(family: addressFamily, eventLoop: eventLoop)
            } else if let lookupEnded {
                resolver = TimedResolver(loop: eventLoop, resolved: lookupEnded)
            } else if dnsTimeout != nil {
                resolver = AddressFamilyResolver(family: .any, eventLoop: eventLoop)
            }
            guard let dnsTimeout, let base = resolver else { return resolver }
            return DeadlineResolver(base: base, timeout: dnsTimeout, loop: eventLoop)
        }
    }

    /// How a connection reaches its origin through a proxy.
    struct ProxyRoute: Sendable {
        let proxy: Proxy
        /// A tunnel (CONNECT or SOCKS) to the origin; false for plain http through an http(s)
        /// proxy, which takes requests in absolute form.
        let tunnel: Bool
        /// The `Proxy-Authorization` for CONNECT (preemptive Basic from the proxy's credentials, or
        /// the answer to a 407).
        var authorization: String?
        var userAgent: String?
        /// TLS to an https proxy (verified against the proxy's name, no pin).
        var tls: TLSConnector?
        /// The tunnel's target as the handshake writes it (an address for `socks5://`).
        var tunnelHost: String
    }

    /// Resolves `host`, tries every address (IPv6 and IPv4, Happy Eyeballs) within the connect
    /// timeout, and sets up the pipeline. TLS handshakes run as the first request is written.
    /// `lookupEnded` is called when the name lookup ends (not for an address, nor through a proxy).
    static func connect(host: String, origin: Origin, settings: Settings, on eventLoop: EventLoop,
                        lookupEnded: (@Sendable () -> Void)? = nil) async throws(SessionError) -> HTTPConnection {
        if let route = settings.route { return try await connect(host: host, origin: origin, settings: settings, route: route, on: eventLoop) }
        let trustFailure = TrustFailureBox()
        let handshakeFailure = TLSHandshakeFailure.Box()
        // While another connection's first TLS handshake to this origin runs, wait for its
        // session (see TLSSessionCache): one full handshake per origin, the others resume.
        let firstHandshake = await settings.tls?.admit(host: host, port: origin.port)
        // Lookups timed for the task's metrics (NIO's own resolver, wrapped); an address is not
        // looked up, and a restricted address family has its own resolver and goes untimed.
        let timed = TrustEvaluator.isIPLiteral(host) ? nil : lookupEnded
        let bootstrap = settings.bootstrap(on: eventLoop, lookupEnded: timed)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configurePipeline(channel: channel, host: host, port: origin.port,
                                          settings: settings, trustFailure: trustFailure, handshakeFailure: handshakeFailure,
                                          firstHandshake: firstHandshake)
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: host, port: origin.port, family: settings.addressFamily).get()
        } catch {
            firstHandshake?.release()
            throw connectError(error, host: host, port: origin.port)
        }
        do {
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: HTTPClientHandler.self),
                             eventLoop: channel.eventLoop)
            }.get()
            return HTTPConnection(channel: channel, origin: origin, handler: handler)
        } catch {
            channel.close(promise: nil)
            // A TLS refusal can close the channel before the handler is reached: say why.
            if let reason = trustFailure.reason { throw SessionError.tlsUntrusted.with("certificate not trusted: \(reason)") }
            throw handshakeFailure.error ?? SessionError.connectionClosed.with("connection closed during setup")
        }
    }

    static func configurePipeline(channel: Channel, host: String, port: Int, settings: Settings,
                                  trustFailure: TrustFailureBox, handshakeFailure: TLSHandshakeFailure.Box,
                                  firstHandshake: TLSSessionCache.FirstHandshake?) throws {
        let sync = channel.pipeline.syncOperations
        if let tls = settings.tls {
            try sync.addHandlers(try tls.makeHandlers(host: host, port: port, trustFailure: trustFailure,
                                                      handshakeFailure: handshakeFailure, firstHandshake: firstHandshake))
        }
        try sync.addHandler(HTTPRequestEncoder())
        try sync.addHandler(responseDecoder(maxHeaderBytes: settings.maxHeaderBytes))
        try sync.addHandler(HTTPClientHandler(idleTimeout: settings.idleReadTimeout, trustFailure: trustFailure,
                                                 rateLimiter: settings.rateLimiter))
    }

    /// NIO's response parser as every connection configures it: leftover bytes after a close
    /// dropped, 1xx answers dropped, the head bounded by `maxHeaderBytes`.
    static func responseDecoder(maxHeaderBytes: Int) -> ByteToMessageHandler<HTTPResponseDecoder> {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = maxHeaderBytes
        limits.maxHeaderFieldSize = maxHeaderBytes
        return ByteToMessageHandler(HTTPResponseDecoder(
            // 1xx heads reach the handler: `100 Continue` releases a body sent with `Expect`.
            leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward, limitConfiguration: limits))
    }

    static func connectError(_ error: Error, host wireHost: String, port: Int) -> SessionError {
        // People read these lines: an internationalised name is shown in Unicode, an IPv6
        // address in brackets.
        let name = IDN.toUnicode(wireHost)
        let endpoint = HostText.endpoint(name, port: port)
        if let error = error as? ChannelError, case .connectTimeout = error {
            return SessionError.timedOut.with("connecting to \(endpoint) timed out")
        }
        if let error = error as? NIOConnectionError {
            if let late = (error.dnsAError ?? error.dnsAAAAError) as? DeadlineResolver.TimedOut, error.connectionErrors.isEmpty {
                return SessionError.timedOut.with("looking up '\(name)' took longer than \(DeadlineResolver.TimedOut.seconds(late.timeout))")
            }
            if error.dnsAAAAError != nil && error.dnsAError != nil && error.connectionErrors.isEmpty {
                return SessionError.unresolvableHost.with("unable to resolve host address '\(name)'")
            }
            if let first = error.connectionErrors.first {
                let failure = SessionError.connectFailed.with("cannot connect to \(endpoint): \(describe(first.error))")
                return (first.error as? IOError).map { failure.errno($0.errnoCode) } ?? failure
            }
            return SessionError.unresolvableHost.with("unable to resolve host address '\(name)'")
        }
        let failure = SessionError.connectFailed.with("cannot connect to \(endpoint): \(describe(error))")
        return (error as? IOError).map { failure.errno($0.errnoCode) } ?? failure
    }

    private static func describe(_ error: Error) -> String {
        if let io = error as? IOError {
            return String(cString: strerror(io.errnoCode))
        }
        return "\(error)"
    }

    // MARK: exchanges

    /// Sends `head` and `body`, waits for the final response head. A small body that arrived
    /// with the head comes back whole in ``ReceivedHead/completeBody``.
    ///
    /// The body goes out as the socket takes it; with `expectContinue` it waits for `100
    /// Continue` at most that long, and a final answer that comes first withholds it
    /// (``ReceivedHead/requestBodyWithheld``). A stream body is pulled here, one chunk at a time,
    /// only once the body may start; the pull stops when the head arrives.
    func send(_ head: HTTPRequestHead, body: OutgoingBody? = nil, expectContinue: TimeAmount? = nil,
              progress: BodyProgress? = nil) async throws(SessionError) -> ReceivedHead {
        cancelIdleClose()
        let promise = channel.eventLoop.makePromise(of: ReceivedHead.self)
        let handler = self.handler
        channel.eventLoop.execute {
            handler.value.send(head, body: body, expectContinue: expectContinue, progress: progress, promise: promise)
        }
        var pump: Task<Void, Never>?
        if case .stream(let slot, _) = body {
            let eventLoop = channel.eventLoop, allocator = channel.allocator
            pump = Task { await Self.pump(slot, into: handler, on: eventLoop, allocator: allocator) }
        }
        defer { pump?.cancel() }
        do {
            return try await promise.futureResult.get()
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.connectionClosed.with("\(error)")
        }
    }

    /// Feeds a stream body to the handler: waits until the body may start, takes the stream
    /// (from then on it is consumed), and hands over each chunk once the socket took the last.
    /// Ends when the stream does, when the handler stops the body, or when cancelled (then
    /// without ending the body: a cut stream must never look complete).
    private static func pump(_ slot: BodyStreamSlot, into handler: NIOLoopBound<HTTPClientHandler>, on eventLoop: EventLoop,
                             allocator: ByteBufferAllocator) async {
        let ready = eventLoop.makePromise(of: Bool.self)
        eventLoop.execute { handler.value.streamBodyReady(ready) }
        guard (try? await ready.futureResult.get()) == true else { return }
        guard let stream = slot.take() else {
            let failure = SessionError.fileIO.with("the request body stream was already consumed")
            eventLoop.execute { handler.value.endStreamBody(failure: failure) }
            return
        }
        do {
            for try await chunk in stream {
                guard !chunk.isEmpty else { continue }
                let buffer = allocator.buffer(bytes: chunk)
                let more = eventLoop.makePromise(of: Bool.self)
                eventLoop.execute { handler.value.writeStreamChunk(buffer, promise: more) }
                guard (try? await more.futureResult.get()) == true else { return }
            }
            guard !Task.isCancelled else { return }
            eventLoop.execute { handler.value.endStreamBody(failure: nil) }
        } catch {
            guard !Task.isCancelled else { return }
            let failure = SessionError.fileIO.with("cannot read the request body: \(error)")
            eventLoop.execute { handler.value.endStreamBody(failure: failure) }
        }
    }

    /// Streams the body of the last response into `spec`'s sink, handing each event to `handle`
    /// (events end with `.end` or `.failed`).
    ///
    /// Returns only when the sink is let go: whatever ended the events (the body's end, a
    /// failure, or the calling task's cancellation, which ends an `AsyncStream` at once while
    /// the channel may still be reading), no byte of this body is written after this returns.
    /// A body still streaming then is abandoned and the connection closed. So the caller may
    /// close, truncate or reuse the file descriptor: a write through a closed descriptor whose
    /// number was reused would land in some other transfer's file.
    func streamBody(_ spec: SinkSpec, _ handle: (BodyEvent) async -> Void) async {
        let (stream, continuation) = AsyncStream.makeStream(of: BodyEvent.self)
        let handler = self.handler
        channel.eventLoop.execute { handler.value.receiveBody(spec, events: continuation) }
        var ended = false
        for await event in stream {
            if case .end = event { ended = true }
            if case .failed = event { ended = true }
            await handle(event)
        }
        // The handler lets go of the sink before it sends `.end` or `.failed`. Without either,
        // the caller's task was cancelled mid-body: stop the sink on its event loop, queued
        // after the start above, so every write it did has returned when this does.
        guard !ended else { return }
        let released = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            handler.value.abandonBody()
            released.succeed()
        }
        try? await released.futureResult.get()
    }

    /// Tells a data sink that `count` delivered bytes were consumed.
    func acknowledge(_ count: Int) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.acknowledge(count) }
    }

    /// Reads and drops the rest of the current body (at most `limit` bytes). Returns true when
    /// the connection is clean for another request.
    func drainBody(limit: Int64) async -> Bool {
        var clean = false
        await streamBody(.discard(limit: limit)) { event in
            if case .end(let end) = event { clean = !end.stoppedEarly }
        }
        return clean && isActive
    }

    func close() {
        cancelIdleClose()
        channel.close(promise: nil)
    }

    /// When an unused connection closes: `deadline` is set while it sits in the pool and cleared
    /// when it is leased. At most one timer runs per connection; it is not cancelled by a lease
    /// (each cancel and schedule from a task's thread is a hop to the event loop, twice per
    /// request of a batch), it looks at the deadline when it fires, and re-arms for a later one.
    private struct IdleTimer {
        var deadline: NIODeadline?
        var armed = false
    }

    /// Closes the connection if it stays unused for `timeout`.
    func scheduleIdleClose(after timeout: TimeAmount) {
        let deadline = NIODeadline.now() + timeout
        let arm = idle.withLockedValue { timer in
            timer.deadline = deadline
            defer { timer.armed = true }
            return !timer.armed
        }
        if arm { armIdleTimer(at: deadline) }
    }

    func cancelIdleClose() {
        idle.withLockedValue { $0.deadline = nil }
    }

    private func armIdleTimer(at deadline: NIODeadline) {
        channel.eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            // nil: close now; .distantFuture: leased, stop; else re-arm for the later deadline.
            let next = idle.withLockedValue { timer -> NIODeadline? in
                guard let deadline = timer.deadline else {
                    timer.armed = false
                    return .distantFuture
                }
                if deadline > .now() { return deadline }
                timer.armed = false
                return nil
            }
            switch next {
            case nil: channel.close(promise: nil)  // unused since its deadline
            case .distantFuture?: break
            case let later?: armIdleTimer(at: later)
            }
        }
    }
}
