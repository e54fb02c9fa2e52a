import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Data connections: passive (connect to the control connection's peer at the port the server
/// named) and active (listen on the control connection's local address; accept one connection,
/// from the control connection's peer only). With `PROT P` the FTP client is the TLS client on
/// both (RFC 4217 §7), and a data connection is trusted when it shows the control connection's
/// certificate, else verified like HTTPS.
extension FTPConnection {
    /// Passive: connects in the background; the handler's `channelActive` (or the failure)
    /// comes as news.
    func openPassive(port: Int, tls: Bool) -> FTPControlMachine.Action {
        guard (1...65535).contains(port) else { return handleFailure("the server named port \(port) for the data connection") }
        var target = peer
        target.port = port
        let address = target
        let (id, slot, transport, setup) = newLink(tls: tls)
        let mailbox = self.mailbox
        var bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(transport.connectTimeout)
            .channelOption(.autoRead, value: false)
            .channelOption(.recvAllocator, value: Self.allocator(transport))
            .channelOption(.maxMessagesPerRead, value: transport.rateLimiter == nil ? UInt(4) : UInt(1))
        // From the address the control connection was bound to (`--bind-address`), any port.
        if transport.network?.localAddress != nil, var local = channel.localAddress {
            local.port = 0
            bootstrap = bootstrap.bind(to: local)
        }
        bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try setup(channel, slot) }
            }
            .connect(to: address)
            .whenFailure { error in
                let reason = HTTPConnection.connectError(error, host: address.ipAddress ?? "the server", port: port).message
                mailbox.post(.event(.dataConnectionFailed(reason), dataLink: id))
            }
        return .wait
    }

    /// Active: binds a listener on the control connection's local address, port 0.
    func listen(tls: Bool) async -> FTPControlMachine.Action {
        guard var local = channel.localAddress, let host = local.ipAddress else {
            return handleFailure("the control connection has no local address to listen on")
        }
        local.port = 0
        let (_, slot, transport, setup) = newLink(tls: tls)
        let peerIP = peer.ipAddress
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.recvAllocator, value: Self.allocator(transport))
            .childChannelOption(.maxMessagesPerRead, value: transport.rateLimiter == nil ? UInt(4) : UInt(1))
            .childChannelInitializer { channel in
                // Only the server we talk to may connect (no data injected by a third party).
                guard channel.remoteAddress?.ipAddress == peerIP, slot.link == nil else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture { try setup(channel, slot) }
            }
        do {
            let listener = try await bootstrap.bind(to: local).get()
            state.withLockedValue { $0.listener = listener }
            guard let port = listener.localAddress?.port else { return handleFailure("the data listener has no port") }
            return handle(.dataListenerReady(host: host, port: port))
        } catch {
            return handleFailure("cannot listen for the data connection: \(error)")
        }
    }

    private func handleFailure(_ reason: String) -> FTPControlMachine.Action {
        handle(.dataConnectionFailed(reason))
    }

    /// A new data connection's number, the slot its handler fills, and the pipeline set-up.
    private func newLink(tls: Bool) -> (Int, FTPDataSlot, Transport,
                                        @Sendable (Channel, FTPDataSlot) throws -> Void) {
        let (id, slot, transport, leaf) = state.withLockedValue { state in
            state.linkID += 1
            state.slot = FTPDataSlot()
            state.link = nil
            state.dataOpened = false
            state.dataEnded = false
            return (state.linkID, state.slot, state.transport, controlLeaf.withLockedValue { $0 })
        }
        let mailbox = self.mailbox, key = self.key
        let settings = FTPDataHandler.Settings(idleTimeout: transport.dataTimeout, rateLimiter: transport.rateLimiter, tls: tls)
        let setup: @Sendable (Channel, FTPDataSlot) throws -> Void = { channel, slot in
            let trustFailure = TrustFailureBox()
            let sync = channel.pipeline.syncOperations
            if tls { try sync.addHandler(try Self.dataTLSHandler(key: key, transport: transport, leaf: leaf, trustFailure: trustFailure)) }
            let handler = FTPDataHandler(link: id, mailbox: mailbox, settings: settings, trustFailure: trustFailure)
            try sync.addHandler(handler)
            let link = FTPDataLink(id: id, channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            guard slot.fill(link) else { throw ChannelError.alreadyClosed }
        }
        return (id, slot, transport, setup)
    }

    /// The TLS client handler of a data connection: the control connection's certificate is
    /// trusted at once; another one goes through the full evaluation.
    private static func dataTLSHandler(key: Key, transport: Transport, leaf: [UInt8]?,
                                       trustFailure: TrustFailureBox) throws -> NIOSSLClientHandler {
        guard let context = transport.tls else { throw SessionError.tlsHandshake.with("no TLS context for FTPS") }
        let sni = TrustEvaluator.isIPLiteral(key.host) ? nil : key.host
        guard let trust = transport.trust else { return try NIOSSLClientHandler(context: context, serverHostname: sni) }
        let host = key.host, port = key.port
        return try NIOSSLClientHandler(context: context, serverHostname: sni) { chain, promise in
            if let leaf, let presented = try? chain.first?.toDERBytes(), presented == leaf {
                promise.succeed(.certificateVerified)
                return
            }
            Task {
                switch await trust(chain, host, port) {
                case .trusted:
                    promise.succeed(.certificateVerified)
                case .untrusted(let reason):
                    trustFailure.record(reason)
                    promise.succeed(.failed)
                }
            }
        }
    }

    /// Reads of up to `transport.maximumRead` bytes, starting small.
    private static func allocator(_ transport: Transport) -> AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: min(64 * 1024, transport.maximumRead),
                                        maximum: transport.maximumRead)
    }
}
