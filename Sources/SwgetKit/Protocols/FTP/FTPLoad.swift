#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// One load of ``FTPProtocolHandler``, read top to bottom: take a logged-in connection from the
/// session's pool (or open one), run the request's job, answer the task with an HTTP-like head
/// and the body, and give the connection back when it is clean.
///
/// The task may stop wanting the load at any moment (cancelled, or done with the head without
/// the body): the connection is then closed, not pooled, since a transfer may be under way.
final class FTPLoad: Sendable {
    /// The largest listing read: room for the 100,000 entries the parser accepts
    /// (``FTPListingParser/Limits``) at up to 320 bytes a line, a 255-byte name included.
    static let maxListingBytes = 32 << 20

    /// The request as the task built it (range and validators included).
    let request: Request
    /// What it asks of the server.
    let plan: FTPRequestPlan
    /// The connection it needs (server, login, TLS).
    let key: FTPConnection.Key
    /// Timeouts, read sizes and TLS from the session.
    let transport: FTPConnection.Transport
    /// The session's logged-in connections.
    let pool: FTPConnectionPool
    /// ``FTPSettings/reusesConnections``.
    let reusesConnections: Bool
    /// Where a new connection runs.
    let eventLoop: EventLoop
    /// The task's side.
    let client: ProtocolClient

    /// What a cancellation must reach.
    private struct Live {
        var mailbox: FTPMailbox?
        var link: FTPDataLink?
        var cancelled = false
        /// The job ended: a later cancellation (the task is simply done) changes nothing.
        var done = false
    }

    private let live = NIOLockedValueBox(Live())

    /// The load of `request` for `task`; a URL or TLS set-up that cannot work fails here.
    init(request: Request, task: SessionTask, client: ProtocolClient) throws(SessionError) {
        self.request = request
        self.client = client
        plan = try FTPRequestPlan(request)
        let session = task.session
        let settings = session.configuration.ftp
        let url = request.url
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw SessionError.unsupportedURL.with("the FTP URL has no host")
        }
        let implicitTLS = url.scheme?.lowercased() == "ftps"
        let port = url.port ?? (implicitTLS ? 990 : 21)
        guard (1...65535).contains(port) else { throw SessionError.unsupportedURL.with("port \(port) is out of range") }

        let login = FTPLogin.resolve(url: url, settings: settings, netrc: session.configuration.netrc)
        var machine = FTPControlMachine.Configuration()
        machine.user = login.user
        machine.password = login.password
        machine.account = login.account
        if implicitTLS {
            machine.security = .implicit
        } else {
            switch settings.security {
            case .none: machine.security = .none
            case .tryTLS: machine.security = .explicit(required: false)
            case .requireTLS: machine.security = .explicit(required: true)
            }
        }
        machine.protectsData = settings.protectsData
        machine.dataMode = settings.passive ? .passive : .active
        machine.pathMode = settings.changesDirectories ? .changeDirectories : .fullPath
        machine.usesExtendedModes = settings.usesExtendedPassive
        key = FTPConnection.Key(host: host.lowercased(), port: port, implicitTLS: implicitTLS, machine: machine)

        // The session's connection settings, as for an http(s) origin: the same timeouts, read
        // sizes, rate limit, TLS context and trust challenge (delegate included).
        let usesTLS = machine.security != .none
        let bracketed = HostText.url(host)
        guard let origin = URL(string: "\(usesTLS ? "https" : "http")://\(bracketed):\(port)/") else {
            throw SessionError.unsupportedURL.with("the FTP URL's host cannot be used")
        }
        let connection = try session.connectionSettings(for: Origin(origin), task: task)
        // One TLS context for the job's control and data connections, with the session's TLS
        // session cache: data connections offer the control connection's session, which servers
        // such as vsftpd require (require_ssl_reuse).
        var context: NIOSSLContext?
        if let connector = connection.tls {
            do {
                context = try connector.shared.makeContext(host: host, port: port, clientCertificate: nil).0
            } catch {
                throw SessionError.tlsHandshake.with("cannot set up TLS: \(error)")
            }
        }
        transport = FTPConnection.Transport(
            connectTimeout: connection.connectTimeout, replyTimeout: connection.idleReadTimeout,
            dataTimeout: connection.idleReadTimeout, maximumRead: connection.maximumRead,
            rateLimiter: connection.rateLimiter, tls: context,
            trust: connection.tls.flatMap { $0.shared.checksServer ? $0.trust : nil }, network: connection)
        pool = session.ftpConnections
        reusesConnections = settings.reusesConnections
        eventLoop = task.connectionLoop
    }

    /// Runs the job and reports it to the client; returns when nothing more happens.
    func run() async {
        client.onCancel { [self] in cancel() }
        // A pooled connection the server dropped meanwhile fails at its first command: the job
        // then gets one fresh connection.
        for attempt in 0..<2 {
            let connection: FTPConnection
            let pooled: Bool
            do {
                (connection, pooled) = try await obtain(fresh: attempt > 0)
            } catch {
                return finish(failing: error)
            }
            let first = await connection.start(plan.job, transport: transport)
            if pooled, case .failed(let error) = first, error != SessionError.cancelled, !isCancelled { continue }
            return await drive(first, on: connection)
        }
    }

    /// An idle pooled connection for the key, or a new one.
    private func obtain(fresh: Bool) async throws(SessionError) -> (FTPConnection, Bool) {
        if !fresh, reusesConnections, let pooled = pool.take(key) {
            guard remember(pooled.mailbox) else {
                pooled.close()
                throw SessionError.cancelled
            }
            return (pooled, true)
        }
        let mailbox = FTPMailbox()
        guard remember(mailbox) else { throw SessionError.cancelled }
        let connection = try await FTPConnection.open(key, transport: transport, mailbox: mailbox, eventLoop: eventLoop)
        return (connection, false)
    }

    /// Follows the connection's stops to the end of the job.
    private func drive(_ first: FTPConnection.Stop, on connection: FTPConnection) async {
        var stop = first
        var info = FTPControlMachine.FileInfo()
        var offset: Int64 = 0
        var completeSize: Int64?
        var link: FTPDataLink?
        var announced = false
        while true {
            switch stop {
            case .metadata(let metadata):
                info = metadata
                switch plan.decide(metadata) {
                case .transfer(let from):
                    stop = await connection.advance(.beginTransfer(offset: from))
                case .complete(let size):
                    completeSize = size
                    stop = await connection.advance(.skipTransfer)
                }
            case .transferSent(let at):
                offset = at
                stop = await connection.advance(nil)
            case .transferReady(let ready):
                link = ready
                live.withLockedValue { $0.link = ready }
                if case .retrieve = plan.job {
                    let response = FTPAnswers.retrieval(url: request.url, info: info, offset: offset)
                    announced = true
                    if await !client.didReceive(response, body: FTPDataBody(link: ready)) {
                        connection.close()
                        return finish(failing: SessionError.cancelled)
                    }
                } else {
                    ready.collect(limit: Self.maxListingBytes)
                }
                stop = await connection.advance(nil)
            case .finished(let result):
                markDone()
                return await finished(result, connection: connection, link: link, info: info,
                                      completeSize: completeSize, announced: announced, offset: offset)
            case .jobFailed(let error):
                markDone()
                link?.failAfterEnd(error)
                give(connection)
                return finish(failing: error)
            case .failed(let error):
                markDone()
                link?.fail(error)
                connection.close()
                return finish(failing: isCancelled ? SessionError.cancelled : error)
            case .ready:
                markDone()
                connection.close()
                return finish(failing: SessionError.badResponse.with("the FTP job ended without a result"))
            }
        }
    }

    private func finished(_ result: FTPControlMachine.JobResult, connection: FTPConnection, link: FTPDataLink?,
                          info: FTPControlMachine.FileInfo, completeSize: Int64?, announced: Bool, offset: Int64) async {
        switch result {
        case .retrieved:
            if let link, announced {
                give(connection)  // before the body ends: the task is free to cancel the load then
                link.finish()
            } else {
                link?.close()
                give(connection)
                await client.didReceive(FTPAnswers.retrieval(url: request.url, info: info, offset: offset))
            }
            client.didFinishLoading()
        case .skipped:
            give(connection)
            await client.didReceive(FTPAnswers.complete(url: request.url, info: info, size: completeSize ?? info.size ?? 0))
            client.didFinishLoading()
        case .probed(let probed):
            give(connection)
            await client.didReceive(FTPAnswers.probe(url: request.url, info: probed))
            client.didFinishLoading()
        case .listed(let format):
            let bytes = await link?.collected() ?? []
            give(connection)
            link?.finish()
            let body: [UInt8]
            do {
                body = try render(bytes, format: format)
            } catch {
                return finish(failing: error)
            }
            guard await client.didReceive(FTPAnswers.listing(url: request.url, length: body.count, form: plan.listingForm,
                                                             format: format)) else { return }
            await client.didLoad(bytes: body)
            client.didFinishLoading()
        }
    }

    /// The listing's bytes as the request asked for them.
    private func render(_ bytes: [UInt8], format: FTPListingFormat) throws(SessionError) -> [UInt8] {
        guard plan.listingForm == .htmlIndex else { return bytes }
        let seconds = Int64(Date().timeIntervalSince1970.rounded(.down))
        guard let now = FTPTimestamp(secondsSince1970: seconds) else { return bytes }
        let entries: [FTPListEntry]
        do {
            entries = try FTPListing.parse(bytes, format: format, now: now)
        } catch {
            throw SessionError.badResponse.with(error.description)
        }
        let scheme = request.url.scheme?.lowercased() ?? "ftp"
        let authority = HostText.endpoint(key.host, port: key.port)
        return FTPDirectoryIndex.html(entries: entries, scheme: scheme, authority: authority,
                                      directory: plan.job.path.directoryPath)
    }

    // MARK: connections and cancellation

    private func give(_ connection: FTPConnection) {
        if reusesConnections && !isCancelled { pool.give(connection) } else { connection.quit() }
    }

    private func finish(failing error: SessionError) {
        client.didFail(with: error.at(request.url))
    }

    /// Notes the mailbox a cancellation must reach; false when the load was cancelled already.
    private func remember(_ mailbox: FTPMailbox) -> Bool {
        live.withLockedValue { live in
            live.mailbox = mailbox
            return !live.cancelled
        }
    }

    private func markDone() {
        live.withLockedValue { $0.done = true }
    }

    private var isCancelled: Bool { live.withLockedValue { $0.cancelled } }

    /// The task no longer wants the load: wake the driver and cut the data connection. After
    /// the job's end only the data connection is closed (the task took its body, or never will:
    /// a failed transfer still draining into no reader).
    private func cancel() {
        let (mailbox, link) = live.withLockedValue { live -> (FTPMailbox?, FTPDataLink?) in
            guard !live.cancelled else { return (nil, nil) }
            live.cancelled = true
            return (live.done ? nil : live.mailbox, live.link)
        }
        mailbox?.post(.cancelled)
        link?.close()
    }
}
