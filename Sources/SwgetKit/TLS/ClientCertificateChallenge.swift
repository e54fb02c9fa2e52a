import Synchronization

/// A client-certificate challenge: during the TLS handshake the server asked for a certificate
/// (TLS 1.3 CertificateRequest, RFC 8446 §4.3.2; TLS 1.2, RFC 5246 §7.4.4). The counterpart of
/// NSURLAuthenticationChallenge with the protection space's method
/// `NSURLAuthenticationMethodClientCertificate` (``AuthenticationMethod/clientCertificate``).
/// The delegate answers with a ``ClientCertificateDisposition``.
///
/// Asked at most once per host and port in a session: the answer (except ``ClientCertificateDisposition/cancel``)
/// is remembered for later connections, and connections that meet the request while the
/// delegate is still deciding wait for that same answer. Not asked when the server does not
/// request a certificate, nor on a resumed TLS session (the certificate of the first handshake
/// stands).
public struct ClientCertificateChallenge: Sendable {
    /// The host name (or IP literal) the task connected to.
    public let host: String
    /// The port.
    public let port: Int
    /// What the session's configuration would present: ``TLSSettings/clientIdentity``.
    public let proposedIdentity: ClientIdentity?

    /// The protection space: https, this host and port, method ``AuthenticationMethod/clientCertificate``.
    public var protectionSpace: ProtectionSpace {
        ProtectionSpace(host: host, port: port, scheme: "https", realm: nil, authenticationMethod: .clientCertificate)
    }

    /// A challenge for `host`:`port`.
    public init(host: String, port: Int, proposedIdentity: ClientIdentity?) {
        self.host = host
        self.port = port
        self.proposedIdentity = proposedIdentity
    }
}

/// A delegate's answer to a ``ClientCertificateChallenge`` (the seeds' dispositions for a
/// client-certificate challenge).
public enum ClientCertificateDisposition: Sendable, Equatable {
    /// Present the configuration's identity (``ClientCertificateChallenge/proposedIdentity``), or
    /// none when there is none. What happens when the delegate does not answer.
    case performDefaultHandling
    /// Present this identity (the seeds' "use credential" with an identity credential).
    case useIdentity(ClientIdentity)
    /// Present no certificate: a server that requires one ends the handshake, one that only asks
    /// goes on.
    case continueWithoutIdentity
    /// Abort the handshake: the task fails with a TLS error (the seeds' "cancel"). Not remembered:
    /// the next connection to the server asks again.
    case cancel

    /// The identity to present: nil for none; `.cancel` is nil too (the caller aborts first).
    func identity(proposed: ClientIdentity?) -> ClientIdentity? {
        switch self {
        case .performDefaultHandling: proposed
        case .useIdentity(let identity): identity
        case .continueWithoutIdentity, .cancel: nil
        }
    }
}

/// The session's answers to client-certificate challenges, per host and port: asked once,
/// remembered, and shared by connections that wait for the same answer. Thread-safe.
///
/// Bounded: at most ``maximumEntries`` hosts are remembered; beyond that the oldest answers are
/// forgotten (and asked again when needed).
final class ClientCertificateDecisions: Sendable {
    struct Key: Hashable {
        let host: String
        let port: Int
    }

    private enum Entry {
        case pending(Task<ClientCertificateDisposition, Never>)
        case decided(ClientCertificateDisposition)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
    }

    static let maximumEntries = 1024
    private let state = Mutex(State())

    /// The answer for `host`:`port`: a remembered one, the one being asked, or `ask()`'s (run
    /// once, in a task of its own that inherits the caller's task-local values).
    func decide(host: String, port: Int,
                ask: @escaping @Sendable () async -> ClientCertificateDisposition) async -> ClientCertificateDisposition {
        let key = Key(host: host.lowercased(), port: port)
        let entry = state.withLock { state -> Entry in
            if let entry = state.entries[key] { return entry }
            let question = Task { await ask() }
            state.entries[key] = .pending(question)
            state.order.append(key)
            if state.order.count > Self.maximumEntries {
                let oldest = state.order.removeFirst()
                state.entries[oldest] = nil
            }
            return .pending(question)
        }
        switch entry {
        case .decided(let answer):
            return answer
        case .pending(let question):
            let answer = await question.value
            state.withLock { state in
                guard case .pending = state.entries[key] else { return }
                if answer == .cancel {
                    state.entries[key] = nil
                    state.order.removeAll { $0 == key }
                } else {
                    state.entries[key] = .decided(answer)
                }
            }
            return answer
        }
    }
}
