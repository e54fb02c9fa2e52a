import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// One FTP control connection and the driver of its ``FTPControlMachine``: the machine decides,
/// this class performs its actions on NIO channels (commands on the control channel, data
/// connections in passive or active mode, TLS) and feeds it what happened, until the machine says
/// something its user must act on (a ``Stop``).
///
/// One user at a time (a load checked out of the ``FTPConnectionPool``); every call may come
/// from any thread. Replies and data-connection news arrive through an ``FTPMailbox``; waits for
/// a reply end after the reply timeout, and while a file streams the data connection's own idle
/// timeout watches instead (the control connection is silent then by design).
final class FTPConnection: Sendable {
    /// What a connection is shared by: the server, and everything the login and the data
    /// connections depend on.
    struct Key: Equatable, Sendable {
        /// The host name as in the URL, lower-cased.
        var host: String
        var port: Int
        /// `ftps://`: TLS from the first byte.
        var implicitTLS: Bool
        /// Login, TLS and data-connection settings.
        var machine: FTPControlMachine.Configuration
    }

    /// Timeouts, read sizes and TLS for one load (a reused connection gets the settings of the
    /// load that uses it).
    struct Transport: Sendable {
        /// Longest time to connect (each data connection too).
        var connectTimeout: TimeAmount
        /// Longest wait for a reply.
        var replyTimeout: TimeAmount
        /// Longest silence of a data connection that is being read.
        var dataTimeout: TimeAmount
        /// The largest socket read of a data connection.
        var maximumRead: Int
        /// The session's rate limit.
        var rateLimiter: RateLimiter?
        /// nil for plain FTP.
        var tls: NIOSSLContext?
        /// The trust challenge (default evaluation, then the delegate); nil when verification is off.
        var trust: (@Sendable (_ chain: [NIOSSLCertificate], _ host: String, _ port: Int) async -> TrustEvaluation)?
        /// The session's address family (`-4`/`-6`), local address (`--bind-address`) and
        /// lookup limit, as for an http(s) origin: the control connection resolves and binds
        /// with them, data connections bind to the control connection's local address.
        var network: HTTPConnection.Settings?
    }

    /// Where the dialogue stopped for the user.
    enum Stop: Sendable {
        /// Logged in and idle.
        case ready
        /// SIZE/MDTM answered: answer with ``FTPControlMachine/Event/beginTransfer(offset:)`` or
        /// ``FTPControlMachine/Event/skipTransfer``.
        case metadata(FTPControlMachine.FileInfo)
        /// The transfer command was sent; its bytes belong at `offset`.
        case transferSent(offset: Int64)
        /// The server answered the transfer command and the data connection is up: its bytes can
        /// be taken (attach a consumer to `link`).
        case transferReady(FTPDataLink)
        /// The job ended well; the connection is idle.
        case finished(FTPControlMachine.JobResult)
        /// The job failed; the connection is idle and may be reused.
        case jobFailed(SessionError)
        /// The connection failed (or was cancelled) and is closed.
        case failed(SessionError)
    }

    /// The per-connection state of the driver.
    struct State {
        var machine: FTPControlMachine
        var transport: Transport
        /// The data connection of the current job, and its number.
        var linkID = 0
        var link: FTPDataLink?
        var listener: Channel?
        var slot = FTPDataSlot()
        /// The current transfer: command sent, first reply seen, data connection open and ended,
        /// ready reported.
        var transferring = false
        var transferAnswered = false
        var dataOpened = false
        var dataEnded = false
        var announced = false
        var closed = false
    }

    /// What the connection can be shared by.
    let key: Key
    /// The control channel.
    let channel: Channel
    /// Where replies and data-connection news arrive.
    let mailbox: FTPMailbox
    /// Why the control connection's TLS refused the server.
    let trustFailure: TrustFailureBox
    /// The control connection's peer: passive data connections go here, whatever a PASV reply
    /// announces (curl's default; RFC 2577 §3's defence against FTP bounce).
    let peer: SocketAddress
    /// The driver's state, behind one lock.
    let state: NIOLockedValueBox<State>
    /// The TLS leaf certificate of the control connection (DER), once its handshake verified it:
    /// data connections showing the same one are the same server.
    let controlLeaf: NIOLockedValueBox<[UInt8]?>
    /// The control channel's event loop (data channels and timers run there too).
    var eventLoop: EventLoop { channel.eventLoop }

    private init(key: Key, channel: Channel, mailbox: FTPMailbox, trustFailure: TrustFailureBox, peer: SocketAddress,
                 transport: Transport, leaf: NIOLockedValueBox<[UInt8]?>) {
        self.key = key
        self.channel = channel
        self.mailbox = mailbox
        self.trustFailure = trustFailure
        self.peer = peer
        self.state = NIOLockedValueBox(State(machine: FTPControlMachine(configuration: key.machine), transport: transport))
        self.controlLeaf = leaf
    }

    // MARK: opening

    /// Connects, reads the greeting, secures and logs in: a connection ready for jobs.
    static func open(_ key: Key, transport: Transport, mailbox: FTPMailbox,
                     eventLoop: EventLoop) async throws(SessionError) -> FTPConnection {
        let trustFailure = TrustFailureBox()
        let leaf = NIOLockedValueBox<[UInt8]?>(nil)
        var bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(transport.connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        if let resolver = transport.network?.resolver(on: eventLoop, lookupEnded: nil) { bootstrap = bootstrap.resolver(resolver) }
        if let local = transport.network?.localAddress { bootstrap = bootstrap.bind(to: local) }
        bootstrap = bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if key.implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(
                            try tlsHandler(key: key, transport: transport, trustFailure: trustFailure, leaf: leaf))
                    }
                    try channel.pipeline.syncOperations.addHandler(FTPControlChannelHandler(mailbox: mailbox, trustFailure: trustFailure))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: key.host, port: key.port, family: transport.network?.addressFamily ?? .any).get()
        } catch {
            throw HTTPConnection.connectError(error, host: key.host, port: key.port)
        }
        guard let peer = channel.remoteAddress else {
            channel.close(promise: nil)
            throw SessionError.connectionClosed.with("the control connection closed at once")
        }
        let connection = FTPConnection(key: key, channel: channel, mailbox: mailbox, trustFailure: trustFailure, peer: peer,
                                       transport: transport, leaf: leaf)
        switch await connection.advance(nil) {
        case .ready:
            return connection
        case .failed(let error), .jobFailed(let error):
            connection.close()
            throw error
        default:
            connection.close()
            throw SessionError.badResponse.with("the FTP login ended in an unexpected state")
        }
    }

    /// The TLS client handler of the control connection, verified like HTTPS (the session's
    /// context and trust challenge); records the leaf certificate.
    static func tlsHandler(key: Key, transport: Transport, trustFailure: TrustFailureBox,
                           leaf: NIOLockedValueBox<[UInt8]?>) throws -> NIOSSLClientHandler {
        guard let context = transport.tls else { throw SessionError.tlsHandshake.with("no TLS context for FTPS") }
        // NIOSSL refuses an IP literal as SNI; the IP is still verified by the trust callback.
        let sni = TrustEvaluator.isIPLiteral(key.host) ? nil : key.host
        guard let trust = transport.trust else {
            return try NIOSSLClientHandler(context: context, serverHostname: sni)
        }
        let host = key.host, port = key.port
        return try NIOSSLClientHandler(context: context, serverHostname: sni) { chain, promise in
            Task {
                switch await trust(chain, host, port) {
                case .trusted:
                    leaf.withLockedValue { $0 = chain.first.flatMap { try? $0.toDERBytes() } }
                    promise.succeed(.certificateVerified)
                case .untrusted(let reason):
                    trustFailure.record(reason)
                    promise.succeed(.failed)
                }
            }
        }
    }

    // MARK: using

    /// True when the connection can take another job now: open, logged in and idle, and the
    /// server said nothing since (a `421` timeout notice, a close).
    var isReusable: Bool {
        guard channel.isActive else { return false }
        let (usable, link) = state.withLockedValue { (!$0.closed && $0.machine.isIdle, $0.linkID) }
        return usable && !mailbox.hasNews(droppingDataLinksBefore: link)
    }

    /// Starts `job` with `transport`'s timeouts and TLS.
    func start(_ job: FTPControlMachine.Job, transport: Transport) async -> Stop {
        state.withLockedValue { $0.transport = transport }
        return await advance(.startJob(job))
    }

    /// Feeds `event` (nil: wait for news) and performs the machine's actions until a ``Stop``.
    func advance(_ event: FTPControlMachine.Event?) async -> Stop {
        var action = event.map(handle) ?? .wait
        var timedOut = false
        while true {
            switch action {
            case .wait:
                let news = await mailbox.next(timeout: waitTimeout, on: eventLoop)
                timedOut = false
                switch news {
                case .event(let event, let link):
                    if let link, link != state.withLockedValue({ $0.linkID }) { continue }  // an older data connection
                    action = handle(event)
                    if let stop = readiness(after: event, action: action) { return stop }
                case .broken(let error):
                    close()
                    return .failed(error)
                case .cancelled:
                    close()
                    return .failed(SessionError.cancelled)
                case .timedOut:
                    timedOut = true
                    action = handle(.timedOut(.control))
                }
                if case .timedOut(.data)? = news.event { timedOut = true }
            case .send(let command):
                channel.writeAndFlush(ByteBuffer(bytes: command.wire), promise: nil)
                action = .wait
            case .startControlTLS:
                action = await startControlTLS()
            case .openDataConnection(let port, _, let tls):
                action = openPassive(port: port, tls: tls)
            case .listenForDataConnection(let tls):
                action = await listen(tls: tls)
            case .closeDataConnection:
                action = handle(.dataConnectionClosed(receivedBytes: dropData()))
            case .transfer(let command, let offset):
                state.withLockedValue {
                    $0.transferring = true
                    $0.transferAnswered = false
                    $0.announced = false
                }
                channel.writeAndFlush(ByteBuffer(bytes: command.wire), promise: nil)
                return .transferSent(offset: offset)
            case .deliverMetadata(let info):
                return .metadata(info)
            case .ready:
                return .ready
            case .jobFinished(let result):
                endJob()
                return .finished(result)
            case .jobFailed(let failure):
                endJob()
                return .jobFailed(FTPAnswers.error(failure))
            case .fail(let failure):
                close()
                if timedOut { return .failed(SessionError.readTimedOut.with(DisplayText.sanitize(failure.message))) }
                return .failed(FTPAnswers.error(failure))
            case .close:
                close()
                return .failed(SessionError.connectionClosed.with("the FTP session ended"))
            }
        }
    }

    /// Feeds the machine, noting what the driver tracks about the transfer.
    func handle(_ event: FTPControlMachine.Event) -> FTPControlMachine.Action {
        state.withLockedValue { state in
            switch event {
            case .reply(let reply) where state.transferring && reply.code != 421:
                if reply.kind == .preliminary || reply.kind == .completion { state.transferAnswered = true }
            case .dataConnectionOpened: state.dataOpened = true
            case .dataConnectionClosed: state.dataEnded = true
            default: break
            }
            return state.machine.handle(event)
        }
    }

    /// The transfer can be read once the server answered its command and the data connection
    /// is up (in active mode the server connects after the command).
    private func readiness(after event: FTPControlMachine.Event, action: FTPControlMachine.Action) -> Stop? {
        guard action == .wait else { return nil }
        return state.withLockedValue { state -> Stop? in
            guard state.transferring, state.transferAnswered, state.dataOpened, !state.announced else { return nil }
            guard let link = state.link ?? state.slot.link else { return nil }
            state.link = link
            state.announced = true
            return .transferReady(link)
        }
    }

    /// No reply timeout while a data connection that was handed out streams: its idle timeout
    /// watches instead.
    private var waitTimeout: TimeAmount? {
        state.withLockedValue { state in
            state.transferring && state.announced && !state.dataEnded ? nil : state.transport.replyTimeout
        }
    }

    /// The data connection of the job just ended is the user's to finish; forget it here.
    private func endJob() {
        let listener = state.withLockedValue { state -> Channel? in
            state.transferring = false
            state.link = nil
            state.slot = FTPDataSlot()
            state.linkID += 1
            defer { state.listener = nil }
            return state.listener
        }
        listener?.close(promise: nil)
    }

    /// Closes the current data connection (MLSD refused: LIST gets a fresh one); returns the
    /// bytes it had (none that matter).
    private func dropData() -> Int64 {
        let (link, listener) = state.withLockedValue { state -> (FTPDataLink?, Channel?) in
            let link = state.link ?? state.slot.link
            state.link = nil
            state.slot = FTPDataSlot()
            state.linkID += 1
            state.transferring = false
            defer { state.listener = nil }
            return (link, state.listener)
        }
        link?.close()
        listener?.close(promise: nil)
        return 0
    }

    /// Closes the data and control connections; the machine ignores everything after.
    func close() {
        let (link, listener) = state.withLockedValue { state -> (FTPDataLink?, Channel?) in
            state.closed = true
            return (state.link ?? state.slot.link, state.listener)
        }
        link?.close()
        listener?.close(promise: nil)
        channel.close(promise: nil)
    }

    /// Says goodbye (`QUIT`) and closes, without waiting for the answer.
    func quit() {
        let idle = state.withLockedValue { !$0.closed && $0.machine.isIdle }
        if idle, channel.isActive {
            channel.writeAndFlush(ByteBuffer(bytes: FTPCommand.quit.wire)).whenComplete { [channel] _ in channel.close(promise: nil) }
        } else {
            close()
        }
    }

    /// Explicit FTPS: TLS on the open control connection.
    private func startControlTLS() async -> FTPControlMachine.Action {
        let transport = state.withLockedValue { $0.transport }
        let box = controlLeaf
        let key = self.key, trustFailure = self.trustFailure
        do {
            try await channel.eventLoop.submit { [channel] in
                let handler = try Self.tlsHandler(key: key, transport: transport, trustFailure: trustFailure, leaf: box)
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            }.get()
        } catch {
            close()
            return handle(.controlConnectionClosed)
        }
        let news = await mailbox.next(timeout: transport.replyTimeout, on: eventLoop)
        switch news {
        case .event(let event, nil): return handle(event)
        case .broken(let error):
            mailbox.post(.broken(error))
            return .wait
        case .cancelled:
            mailbox.post(.cancelled)
            return .wait
        default:
            return handle(.timedOut(.control))
        }
    }
}

extension FTPNews {
    /// The machine event inside, if any.
    var event: FTPControlMachine.Event? {
        if case .event(let event, _) = self { return event }
        return nil
    }
}
