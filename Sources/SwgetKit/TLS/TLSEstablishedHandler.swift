import NIOCore
import NIOSSL
import NIOTLS

/// Sits right after NIOSSL's client handler and passes everything through. It reports the
/// handshake's outcome (``TLSConnectionInfo``: version and peer certificate from NIOSSL, cipher
/// and resumption from ``TLSContextHooks``) when NIOSSL announces `handshakeCompleted`, and opens
/// the session cache's first-handshake gate when the connection has read its first application
/// bytes (any session ticket came before them), failed, or closed. A handshake failure is kept
/// for the connection's setup, which may find the pipeline gone before it can ask the HTTP
/// handler (a server that refuses the ClientHello at once).
final class TLSEstablishedHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let host: String
    private let port: Int
    private let hooks: TLSContextHooks
    private let established: @Sendable (TLSConnectionInfo) -> Void
    private let handshakeFailure: TLSHandshakeFailure.Box
    private var firstHandshake: TLSSessionCache.FirstHandshake?
    private var handshakeDone = false

    init(host: String, port: Int, hooks: TLSContextHooks, established: @escaping @Sendable (TLSConnectionInfo) -> Void,
         handshakeFailure: TLSHandshakeFailure.Box, firstHandshake: TLSSessionCache.FirstHandshake?) {
        self.host = host
        self.port = port
        self.hooks = hooks
        self.established = established
        self.handshakeFailure = handshakeFailure
        self.firstHandshake = firstHandshake
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            handshakeDone = true
            let sync = context.pipeline.syncOperations
            let certificate = (try? sync.nioSSL_peerCertificate())
                .flatMap { try? $0.toDERBytes() }
                .flatMap(CertificateSummary.init(derEncoded:))
            established(TLSConnectionInfo(host: host, port: port,
                                          protocolVersion: TLSConnectionInfo.name(of: try? sync.nioSSL_tlsVersion()),
                                          cipherSuite: hooks.cipherSuite, sessionResumed: hooks.sessionResumed,
                                          serverCertificate: certificate))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        releaseGate()
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        releaseGate()
        if !handshakeDone { handshakeFailure.record(error) }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseGate()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseGate()
    }

    private func releaseGate() {
        firstHandshake?.release()
        firstHandshake = nil
    }
}
