import NIOCore
import NIOSSL

/// The TLS side of one session, built on its first https connection from ``TLSSettings``: the
/// client configuration every connection starts from (TLS 1.2 floor, the version policy, ALPN
/// `http/1.1`), the trust evaluator, the session cache and the client-certificate answers.
///
/// Each new connection gets a `NIOSSLContext` of its own (``makeContext(host:port:clientCertificate:)``):
/// NIOSSL answers a client-certificate request through a context-wide callback that cannot tell
/// connections apart, so the context carries the connection's host, port and task. Without
/// trust roots in BoringSSL (the chain is checked by ``TrustEvaluator``), making one costs
/// tens of microseconds, against milliseconds for a handshake.
final class SessionTLS: Sendable {
    let settings: TLSSettings
    /// What every connection's context starts from.
    private let base: TLSConfiguration
    /// The default evaluation; nil with verification off.
    let evaluator: TrustEvaluator?
    /// Kept sessions; nil when ``TLSSettings/resumesSessions`` is off.
    let sessions: TLSSessionCache?
    /// The delegate's client-certificate answers, per host and port.
    let clientCertificates = ClientCertificateDecisions()

    /// Builds the configuration and loads the trust roots. Throws ``SessionError/fileIO`` for a
    /// CA file that cannot be read, ``SessionError/tlsHandshake`` when BoringSSL refuses the
    /// configuration.
    init(settings: TLSSettings, environment: [String: String]) throws(SessionError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        // Chain and name checks happen in our verification callback (TrustEvaluator), so
        // BoringSSL gets no roots of its own. With verification off the callback still runs when
        // a public key is pinned: the pin applies whatever the verification (wget, curl).
        tls.trustRoots = .certificates([])
        tls.certificateVerification = settings.verification == .full || settings.pinnedPublicKey != nil
            ? .noHostnameVerification : .none
        tls.applicationProtocols = ["http/1.1"]
        // TLS 1.0 and 1.1 are broken (RFC 8996): the policy's floor is TLS 1.2, as in curl,
        // wget and browsers. Ciphers only through the policy (NIOSSL traps on a bad list).
        settings.versionPolicy.configure(&tls)
        do {
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw SessionError.tlsHandshake.with("cannot set up TLS: \(error)")
        }
        self.settings = settings
        self.base = tls
        self.evaluator = settings.verification == .full ? try TrustEvaluator(settings: settings, environment: environment) : nil
        self.sessions = settings.resumesSessions ? TLSSessionCache() : nil
    }

    /// Whether connections run the server-trust callback (verification on, or a pin to check).
    var checksServer: Bool { settings.verification == .full || settings.pinnedPublicKey != nil }

    /// A context for one new connection to `host`:`port`, with its BoringSSL hooks installed.
    /// `clientCertificate`, when given, answers the server's certificate request.
    func makeContext(host: String, port: Int,
                     clientCertificate: (@Sendable () async -> ClientCertificateDisposition)?) throws -> (NIOSSLContext, TLSContextHooks) {
        var configuration = base
        if let clientCertificate {
            let proposed = settings.clientIdentity
            configuration.sslContextCallback = { _, promise in
                Task {
                    let answer = await clientCertificate()
                    if answer == .cancel {
                        promise.fail(SessionError.tlsHandshake.with("TLS handshake failed: the client-certificate challenge was cancelled"))
                    } else if let identity = answer.identity(proposed: proposed) {
                        promise.succeed(identity.configurationOverride)
                    } else {
                        promise.succeed(.noChanges)
                    }
                }
            }
        }
        let context = try NIOSSLContext(configuration: configuration)
        let hooks = TLSContextHooks(host: host, port: port, cache: sessions)
        hooks.install(on: context)
        return (context, hooks)
    }
}

/// What one hop's new connections need from the session's TLS: the shared part, and the task's
/// answers to the server-trust and client-certificate challenges and its event sink. Built per
/// hop by the session (cheap: closures), used only when a new connection is opened.
struct TLSConnector: Sendable {
    let shared: SessionTLS
    /// The server-trust verdict for a presented chain (leaf first), host and port.
    let trust: @Sendable (_ chain: [NIOSSLCertificate], _ host: String, _ port: Int) async -> TrustEvaluation
    /// The answer to a client-certificate request from host and port; nil to present the
    /// configured identity without asking anyone.
    let clientCertificate: (@Sendable (_ host: String, _ port: Int) async -> ClientCertificateDisposition)?
    /// Told what a new connection negotiated.
    let established: @Sendable (TLSConnectionInfo) -> Void

    /// Waits while another connection's first handshake to the origin runs (see
    /// ``TLSSessionCache``); the ticket returned, if any, makes this connection the first.
    func admit(host: String, port: Int) async -> TLSSessionCache.FirstHandshake? {
        await shared.sessions?.admit(host: host, port: port)
    }

    /// The TLS handlers of a new connection's pipeline: NIOSSL's client handler, then the
    /// handler that reports the handshake's outcome.
    func makeHandlers(host: String, port: Int, trustFailure: TrustFailureBox, handshakeFailure: TLSHandshakeFailure.Box,
                      firstHandshake: TLSSessionCache.FirstHandshake?) throws -> [ChannelHandler] {
        typealias Answer = @Sendable () async -> ClientCertificateDisposition
        let answer: Answer? = clientCertificate.map { ask in { @Sendable in await ask(host, port) } }
        let needsCallback = answer != nil || shared.settings.clientIdentity != nil
        let fallback: Answer = { .performDefaultHandling }
        let (context, hooks) = try shared.makeContext(host: host, port: port,
                                                      clientCertificate: needsCallback ? (answer ?? fallback) : nil)
        // NIOSSL refuses an IP literal as SNI; the IP is still verified by the trust callback.
        let sni = TrustEvaluator.isIPLiteral(host) ? nil : host
        let tls: NIOSSLClientHandler
        if shared.checksServer {
            let trust = self.trust
            tls = try NIOSSLClientHandler(context: context, serverHostname: sni) { chain, promise in
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
        } else {
            tls = try NIOSSLClientHandler(context: context, serverHostname: sni)
        }
        let report = TLSEstablishedHandler(host: host, port: port, hooks: hooks, established: established,
                                           handshakeFailure: handshakeFailure, firstHandshake: firstHandshake)
        return [tls, report]
    }
}
