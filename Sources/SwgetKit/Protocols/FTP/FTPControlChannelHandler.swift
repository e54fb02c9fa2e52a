import NIOCore
import NIOSSL
import NIOTLS

/// The last handler of an FTP control connection's pipeline (`[TLS] → this`): reads replies with
/// ``FTPReplyParser`` (whatever pieces the bytes come in) and posts them, the TLS handshake's
/// end, and the connection's end to the driver's ``FTPMailbox``. Writing commands is the
/// driver's (`channel.writeAndFlush`). Runs on the channel's event loop.
final class FTPControlChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let mailbox: FTPMailbox
    private let trustFailure: TrustFailureBox
    private var parser = FTPReplyParser()
    private var broken = false

    /// A handler posting to `mailbox`; `trustFailure` names a refused certificate.
    init(mailbox: FTPMailbox, trustFailure: TrustFailureBox) {
        self.mailbox = mailbox
        self.trustFailure = trustFailure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !broken else { return }
        let buffer = unwrapInboundIn(data)
        // The replies before a bad line come first, whatever the read held (see FTPReplyParser).
        let replies = (try? parser.feed(buffer.readableBytesView)) ?? []
        for reply in replies {
            mailbox.post(.event(.reply(reply), dataLink: nil))
        }
        if let failure = parser.failure {
            fail(context: context, SessionError.badResponse.with(failure.description))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            mailbox.post(.event(.controlTLSEstablished, dataLink: nil))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl { return }  // the end comes next
        fail(context: context, FTPTransportError.translate(error, trustFailure: trustFailure))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !broken {
            if (try? parser.finish()) == nil {
                mailbox.post(.broken(SessionError.connectionClosed.with("the server closed the control connection inside a reply")))
            } else {
                mailbox.post(.event(.controlConnectionClosed, dataLink: nil))
            }
            broken = true
        }
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ error: SessionError) {
        guard !broken else { return }
        broken = true
        mailbox.post(.broken(error))
        context.close(promise: nil)
    }
}

/// The session errors of transport failures on FTP connections (the counterpart of the HTTP
/// handler's translation).
enum FTPTransportError {
    /// The session error for a channel error (a refused certificate first, then TLS, I/O, other).
    static func translate(_ error: Error, trustFailure: TrustFailureBox?) -> SessionError {
        if let error = error as? SessionError { return error }
        if let reason = trustFailure?.reason {
            return SessionError.tlsUntrusted.with("certificate not trusted: \(reason)")
        }
        if error is NIOSSLError || error is BoringSSLError {
            return SessionError.tlsHandshake.with("TLS handshake failed: \(error)")
        }
        if let io = error as? IOError {
            return SessionError.connectionClosed.with("connection error: \(io.description)").errno(io.errnoCode)
        }
        return SessionError.connectionClosed.with("connection error: \(error)")
    }
}
