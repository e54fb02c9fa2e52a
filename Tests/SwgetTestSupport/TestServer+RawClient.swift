import NIOCore
import NIOPosix
import NIOSSL

extension TestServer {
    /// Connects to 127.0.0.1:`port`, writes `bytes` in one write, and returns every byte received
    /// until the peer closes or `timeout` passes (then the connection is closed by us).
    ///
    /// For checking exact wire bytes (framing, pipelining) and TLS with a NIOSSL client.
    /// - Parameter tls: when set, speaks TLS first, sending `serverHostname` as SNI and checking it.
    public static func rawExchange(
        port: Int,
        sending bytes: [UInt8],
        tls: TLSConfiguration? = nil,
        serverHostname: String = "localhost",
        timeout: Duration = .seconds(5)
    ) async throws -> [UInt8] {
        // Its own thread, like the server's: never queued behind other tests' event-loop work.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let received = try await exchange(
                on: group.next(), port: port, sending: bytes, tls: tls, serverHostname: serverHostname, timeout: timeout)
            try await group.shutdownGracefully()
            return received
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func exchange(
        on eventLoop: any EventLoop,
        port: Int,
        sending bytes: [UInt8],
        tls: TLSConfiguration?,
        serverHostname: String,
        timeout: Duration
    ) async throws -> [UInt8] {
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let received = eventLoop.makePromise(of: [UInt8].self)
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname)
                            )
                        }
                        try channel.pipeline.syncOperations.addHandler(CollectingHandler(received))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
        } catch {
            received.fail(error)
            throw error
        }
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        return try await received.futureResult.get()
    }
}

/// Gathers everything read; completes the promise when the channel goes inactive.
private final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var bytes: [UInt8] = []
    private var promise: EventLoopPromise<[UInt8]>?

    init(_ promise: EventLoopPromise<[UInt8]>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed(bytes)
        promise = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // TLS close without close_notify and resets still end the exchange with what arrived;
        // a failed handshake is reported.
        if case .some(NIOSSLError.uncleanShutdown) = error as? NIOSSLError {
            return
        }
        if bytes.isEmpty {
            promise?.fail(error)
            promise = nil
        }
        context.close(promise: nil)
    }
}
