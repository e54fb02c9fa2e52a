import NIOCore

/// Runs one proxy handshake (HTTP CONNECT, SOCKS5, SOCKS4/4a: any `ProxyHandshakeMachine`) on a
/// channel, then gets out of the way. Placed after the TLS handler to the proxy (if any) and
/// before the origin's TLS and HTTP handlers:
/// `[TLS to proxy] → ProxyHandshakeHandler → [TLS to origin] → HTTP`.
///
/// Life cycle (modelled on NIOSOCKS's `SOCKSClientHandler`):
/// - starts when the channel becomes active, or when added to an active channel;
/// - reads on its own (it works with `autoRead` off); a read asked for by later handlers during the
///   handshake is remembered and issued once the tunnel is up;
/// - buffers every outbound write (the origin's TLS ClientHello, an HTTP request) until the
///   tunnel is up, keeping write order and flush marks;
/// - on success: succeeds `tunnel`, fires `ProxyTunnelEstablishedEvent`, writes the buffered
///   data, hands leftover bytes on as one `channelRead`, and removes itself;
/// - on failure (a `ProxyHandshakeError`, a timeout, the connection closing, an error from the
///   handlers before it): fails `tunnel` and the buffered writes with that error, fires it as
///   `errorCaught` (handshake errors only) and closes the channel.
/// `tunnel` is always completed, at the latest when the handler leaves the pipeline.
final class ProxyHandshakeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    /// Bytes from the proxy.
    public typealias InboundIn = ByteBuffer
    /// Tunnel bytes for the origin's handlers.
    public typealias InboundOut = ByteBuffer
    /// Bytes the origin's handlers send.
    public typealias OutboundIn = ByteBuffer
    /// Bytes to the proxy.
    public typealias OutboundOut = ByteBuffer

    private enum State {
        case waitingForActive
        case handshaking
        case established
        case failed(any Error)
    }

    private var machine: any ProxyHandshakeMachine
    private var state = State.waitingForActive
    private let timeout: TimeAmount?
    private var scheduledTimeout: Scheduled<Void>?
    private let promise: EventLoopPromise<ProxyTunnel>
    private var promiseCompleted = false
    private var bufferedWrites = MarkedCircularBuffer<(NIOAny, EventLoopPromise<Void>?)>(initialCapacity: 4)
    private var downstreamWantsRead = false
    private var removalToken: ChannelHandlerContext.RemovalToken?

    /// Succeeds with the tunnel's details, or fails with the reason (usually a
    /// `ProxyHandshakeError`; an error from an earlier handler, e.g. NIOSSL's, as it came).
    public var tunnel: EventLoopFuture<ProxyTunnel> { promise.futureResult }

    /// A handler for `machine`; `eventLoop` must be the channel's. `timeout` bounds the handshake
    /// from its start (nil: no bound of its own).
    public init(machine: some ProxyHandshakeMachine, eventLoop: EventLoop, timeout: TimeAmount? = nil) {
        self.machine = machine
        self.timeout = timeout
        self.promise = eventLoop.makePromise(of: ProxyTunnel.self)
    }

    /// A handler that asks `proxy` for a tunnel to `targetHost:targetPort` (see
    /// `Proxy.handshake(toHost:port:proxyAuthorization:userAgent:)`).
    public convenience init(proxy: Proxy, targetHost: String, targetPort: Int, proxyAuthorization: String? = nil,
                            userAgent: String? = nil, eventLoop: EventLoop, timeout: TimeAmount? = nil) throws(ProxyHandshakeError) {
        let machine = try proxy.handshake(toHost: targetHost, port: targetPort, proxyAuthorization: proxyAuthorization, userAgent: userAgent)
        self.init(machine: machine, eventLoop: eventLoop, timeout: timeout)
    }

    // MARK: life cycle

    /// Starts the handshake if the channel is already active.
    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context: context) }
    }

    /// Starts the handshake, then passes the event on.
    public func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    /// Fails `tunnel` and buffered writes if the handshake had not ended.
    public func handlerRemoved(context: ChannelHandlerContext) {
        scheduledTimeout?.cancel()
        scheduledTimeout = nil
        let error = ProxyHandshakeError.connectionClosed("before the proxy handshake finished (handler removed)")
        failBufferedWrites(error)
        completePromise(.failure(error))
    }

    private func begin(context: ChannelHandlerContext) {
        guard case .waitingForActive = state else { return }
        state = .handshaking
        if let timeout {
            scheduledTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                if case .handshaking = self.state { self.fail(.timedOut, context: context) }
            }
        }
        perform(machine.start(), context: context)
        if case .handshaking = state { context.read() }
    }

    private func perform(_ step: ProxyHandshakeStep, context: ChannelHandlerContext) {
        if !step.write.isEmpty {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: step.write)), promise: nil)
        }
        switch step.result {
        case .needMoreData:
            break
        case .established(let tunnel, let leftover):
            establish(tunnel, leftover: leftover, context: context)
        case .failed(let error):
            fail(error, context: context)
        }
    }

    private func establish(_ tunnel: ProxyTunnel, leftover: [UInt8], context: ChannelHandlerContext) {
        state = .established
        scheduledTimeout?.cancel()
        scheduledTimeout = nil
        completePromise(.success(tunnel))
        context.fireUserInboundEventTriggered(ProxyTunnelEstablishedEvent(tunnel: tunnel))
        writeBufferedData(context: context)
        if !leftover.isEmpty {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: leftover)))
        } else if downstreamWantsRead {
            context.read()
        }
        downstreamWantsRead = false
        if let removalToken {
            context.leavePipeline(removalToken: removalToken)
        } else {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func fail(_ error: ProxyHandshakeError, context: ChannelHandlerContext) {
        guard case .handshaking = state else { return }
        state = .failed(error)
        scheduledTimeout?.cancel()
        scheduledTimeout = nil
        completePromise(.failure(error))
        failBufferedWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func completePromise(_ result: Result<ProxyTunnel, any Error>) {
        guard !promiseCompleted else { return }
        promiseCompleted = true
        promise.completeWith(result)
    }

    // MARK: inbound

    /// Feeds the handshake; after it, passes bytes on.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .handshaking:
            let buffer = unwrapInboundIn(data)
            perform(machine.receive(Array(buffer.readableBytesView)), context: context)
        case .established, .waitingForActive:
            context.fireChannelRead(data)
        case .failed:
            break  // the proxy's bytes after a failure are dropped; the channel is closing
        }
    }

    /// Asks for more while the handshake needs it; swallowed until then.
    public func channelReadComplete(context: ChannelHandlerContext) {
        switch state {
        case .handshaking:
            context.read()
        case .established, .waitingForActive:
            context.fireChannelReadComplete()
        case .failed:
            break
        }
    }

    /// Fails an unfinished handshake with the stage it reached.
    public func channelInactive(context: ChannelHandlerContext) {
        if case .handshaking = state {
            let error = machine.connectionClosed()
            state = .failed(error)
            scheduledTimeout?.cancel()
            scheduledTimeout = nil
            completePromise(.failure(error))
            failBufferedWrites(error)
        }
        context.fireChannelInactive()
    }

    /// Fails an unfinished handshake with `error` as it came, and passes it on.
    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch state {
        case .handshaking, .waitingForActive:
            state = .failed(error)
            scheduledTimeout?.cancel()
            scheduledTimeout = nil
            completePromise(.failure(error))
            failBufferedWrites(error)
        case .established, .failed:
            break
        }
        context.fireErrorCaught(error)
    }

    // MARK: outbound

    /// Buffers until the tunnel is up; fails at once after a failure.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .established where bufferedWrites.isEmpty:
            context.write(data, promise: promise)
        case .failed(let error):
            promise?.fail(error)
        default:
            bufferedWrites.append((data, promise))
        }
    }

    /// Marks the buffered writes as flushed (written once the tunnel is up).
    public func flush(context: ChannelHandlerContext) {
        bufferedWrites.mark()
        if case .established = state { writeBufferedData(context: context) }
    }

    /// Remembered during the handshake (which does its own reads), passed on after it.
    public func read(context: ChannelHandlerContext) {
        switch state {
        case .established, .failed:
            context.read()
        case .handshaking, .waitingForActive:
            downstreamWantsRead = true
        }
    }

    /// Leaves at once when the handshake is over, else as soon as it is.
    public func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        switch state {
        case .handshaking, .waitingForActive:
            // Leave once the tunnel is up (as SOCKSClientHandler does); a failure closes the channel.
            self.removalToken = removalToken
        case .established, .failed:
            writeBufferedData(context: context)
            context.leavePipeline(removalToken: removalToken)
        }
    }

    /// Writes what was flushed before, flushes, then writes (without flushing) the rest.
    private func writeBufferedData(context: ChannelHandlerContext) {
        guard case .established = state, !bufferedWrites.isEmpty else { return }
        if bufferedWrites.hasMark {
            while bufferedWrites.hasMark, let (data, promise) = bufferedWrites.popFirst() {
                context.write(data, promise: promise)
            }
            context.flush()
        }
        while let (data, promise) = bufferedWrites.popFirst() {
            context.write(data, promise: promise)
        }
    }

    private func failBufferedWrites(_ error: any Error) {
        while let (_, promise) = bufferedWrites.popFirst() {
            promise?.fail(error)
        }
    }
}

@available(*, unavailable)
extension ProxyHandshakeHandler: Sendable {}

extension Proxy {
    /// The handshake that asks this proxy for a tunnel to `host:port`:
    /// - `http`/`https`: CONNECT with `proxyAuthorization`, else `credentials.basicAuthorization`
    ///   (preemptive Basic when the proxy URL carries credentials), else none;
    /// - `socks5h`: SOCKS5 with the name; `socks5`: SOCKS5 with an address, so `host` must be an
    ///   IP literal (resolve it first); both with RFC 1929 when credentials are present;
    /// - `socks4a`/`socks4`: likewise, the user name as SOCKS4 user id.
    func handshake(toHost host: String, port: Int, proxyAuthorization: String? = nil,
                          userAgent: String? = nil) throws(ProxyHandshakeError) -> any ProxyHandshakeMachine {
        switch kind {
        case .http, .https:
            return try HTTPConnectHandshake(host: host, port: port,
                                            proxyAuthorization: proxyAuthorization ?? credentials?.basicAuthorization,
                                            userAgent: userAgent)
        case .socks5, .socks5h, .socks4, .socks4a:
            let target = try SOCKSTarget(host: host, port: port)
            if kind.resolvesOriginLocally, case .name(let name) = target.host {
                throw .invalidTarget("\(kind.rawValue):// resolves names locally: resolve '\(name)' first, or use \(kind == .socks5 ? "socks5h" : "socks4a")://")
            }
            if kind == .socks5 || kind == .socks5h {
                return try SOCKS5Handshake(target: target, credentials: credentials)
            }
            return try SOCKS4Handshake(target: target, userID: credentials?.user ?? "", allowNames: kind == .socks4a)
        }
    }
}
