/// The HTTP authentication flow of one task (RFC 9110 §11, 401 and 407 alike), as a pure state
/// machine: the exchange driver feeds it events and performs the actions it returns.
///
/// ```
///  (request, maybe with a preemptive credential: sentPreemptively)
///        │
///   401/407 ──challenged──► askForCredential ──credentialDecided(.use)──► retry(field, value)
///        │                      │    ▲                                         │
///        │                      │    └──(.rejectProtectionSpace: next space)   │
///        │                      └──(.noCredential)──► fail(credentialsRequired)│
///        │                                                                     ▼
///        ├─ stale=true for the credential just sent ──► retry (not a failure, at most twice)
///        ├─ refused again after our retry for that space ──► fail(rejected)
///        └─ any other status ──succeeded──► [AcceptedAuthentication] for the storage
/// ```
///
/// Invariants:
/// - Each protection space is answered with a retry at most once per task (plus at most
///   ``maximumStaleRetries`` stale nonces): wrong credentials end in `fail(.rejected)`, never a loop.
///   A credential sent before any challenge (``sentPreemptively(_:)``) that is refused counts as
///   one failure, and the space still gets its one retry.
/// - At most ``maximumChallenges`` challenges per task, whatever the realms: a server that
///   challenges forever ends in `fail(.tooManyChallenges)`.
/// - `previousFailureCount` is the number of refused credentials for that space in this task;
///   `proposedCredential` is the last one refused.
/// - Server (401, `Authorization`) and proxy (407, `Proxy-Authorization`) are tracked apart; a
///   retry sets one field and leaves the other as it was on the request.
/// - The machine never calls the storage, the delegate or a clock; client nonces come from the
///   injected `cnonce` source.
struct AuthenticationState: Sendable {
    /// What the driver does next.
    public enum Action: Sendable, Equatable {
        /// Set `field` to `value` on the same request (same method, target and body) and send it again.
        case retry(field: String, value: String)
        /// Find a credential (delegate, storage, URL, `.netrc`), then call ``credentialDecided(_:)``.
        case askForCredential(AuthenticationChallenge)
        /// End the task with this authentication failure.
        case fail(AuthenticationFailure)
    }

    /// The most 401/407 answers handled in one task.
    public static let maximumChallenges = 8
    /// The most `stale=true` retries per protection space in one task.
    public static let maximumStaleRetries = 2

    /// "Authorization", or "Proxy-Authorization" for a proxy.
    public static func field(isProxy: Bool) -> String { isProxy ? "Proxy-Authorization" : "Authorization" }

    /// What the last request carried for the server or for the proxy.
    private struct Sent: Sendable {
        let space: ProtectionSpace
        let credential: Credential
        let digest: DigestNonceState?

        /// True when this credential was meant for `space`: the same space, or a preemptive
        /// Basic credential without realm for the same origin (`--auth-no-challenge`).
        func covers(_ space: ProtectionSpace) -> Bool {
            self.space == space || (self.space.realm == nil && self.space.matchesOrigin(of: space)
                                    && self.space.authenticationMethod == space.authenticationMethod)
        }
    }

    /// A challenge waiting for ``credentialDecided(_:)``.
    private struct Pending: Sendable {
        let candidates: [SupportedChallenge]
        var index: Int
        let request: ChallengedRequest
        let isProxy: Bool

        var space: ProtectionSpace { Pending.space(candidates[index], request, isProxy) }

        static func space(_ candidate: SupportedChallenge, _ request: ChallengedRequest, _ isProxy: Bool) -> ProtectionSpace {
            ProtectionSpace(host: request.host, port: request.port, scheme: request.scheme, realm: candidate.realm,
                            authenticationMethod: candidate.method, isProxy: isProxy)
        }
    }

    private let cnonce: @Sendable () -> String
    private var sentToServer: Sent?
    private var sentToProxy: Sent?
    private var pending: Pending?
    private var challengeCount = 0
    private var failures: [ProtectionSpace: Int] = [:]
    private var refused: [ProtectionSpace: Credential] = [:]
    private var retried: Set<ProtectionSpace> = []
    private var staleRetries: [ProtectionSpace: Int] = [:]
    /// The last Digest nonce state sent to each space, to continue its count on the same nonce.
    private var lastDigest: [ProtectionSpace: DigestNonceState] = [:]

    /// A machine for one task. `cnonce` makes Digest client nonces (inject a fixed one in tests).
    public init(cnonce: @escaping @Sendable () -> String = { DigestAuthentication.makeCnonce() }) {
        self.cnonce = cnonce
    }

    /// True while a challenge waits for ``credentialDecided(_:)``.
    public var isAwaitingCredential: Bool { pending != nil }

    /// The request about to be sent carries `authorization` (from the storage, or Basic for
    /// `--auth-no-challenge`); a refusal then counts as a failure for its space.
    public mutating func sentPreemptively(_ authorization: PreemptiveAuthorization) {
        let sent = Sent(space: authorization.space, credential: authorization.credential, digest: authorization.digest)
        if let digest = authorization.digest { lastDigest[authorization.space] = digest }
        if authorization.space.isProxy { sentToProxy = sent } else { sentToServer = sent }
    }

    /// The response to the last request is a 401 (`WWW-Authenticate`'s challenges) or a 407
    /// (`Proxy-Authenticate`'s), for `request`.
    public mutating func challenged(status: Int, challenges: [AuthChallenge], request: ChallengedRequest) -> Action {
        guard status == 401 || status == 407 else { return .fail(.unexpectedEvent("status \(status) is not a challenge")) }
        guard pending == nil else { return .fail(.unexpectedEvent("challenged while a credential is awaited")) }
        challengeCount += 1
        guard challengeCount <= Self.maximumChallenges else { return .fail(.tooManyChallenges) }
        let isProxy = status == 407
        let candidates = SupportedChallenge.ranked(challenges, body: request.body)
        guard let first = candidates.first else { return .fail(Self.unusable(challenges, body: request.body)) }
        let space = Pending.space(first, request, isProxy)

        if let previous = isProxy ? sentToProxy : sentToServer, previous.covers(space) {
            if case .digest(let digest, _) = first, digest.stale, previous.digest != nil,
               staleRetries[space, default: 0] < Self.maximumStaleRetries {
                staleRetries[space, default: 0] += 1
                return answer(first, with: previous.credential, request: request, isProxy: isProxy)
            }
            failures[space, default: 0] += 1
            refused[space] = previous.credential
            if isProxy { sentToProxy = nil } else { sentToServer = nil }
            if retried.contains(space) { return .fail(.rejected(space)) }
        }
        pending = Pending(candidates: candidates, index: 0, request: request, isProxy: isProxy)
        return .askForCredential(challenge(first, space: space))
    }

    /// The driver's answer to ``Action/askForCredential(_:)``.
    public mutating func credentialDecided(_ decision: CredentialDecision) -> Action {
        guard var pending else { return .fail(.unexpectedEvent("a credential was decided with no challenge waiting")) }
        let space = pending.space
        switch decision {
        case .use(let credential):
            self.pending = nil
            retried.insert(space)
            return answer(pending.candidates[pending.index], with: credential, request: pending.request, isProxy: pending.isProxy)
        case .noCredential:
            self.pending = nil
            return .fail(.credentialsRequired(space))
        case .rejectProtectionSpace:
            while pending.index + 1 < pending.candidates.count {
                pending.index += 1
                let next = pending.space
                guard next != space, !retried.contains(next) else { continue }
                self.pending = pending
                return .askForCredential(challenge(pending.candidates[pending.index], space: next))
            }
            self.pending = nil
            return .fail(.credentialsRequired(space))
        }
    }

    /// The response to the last request is not a challenge: every credential it carried was
    /// accepted. Returns them for ``CredentialStorage/remember(_:)`` and forgets them (the next
    /// hop tells the machine again what it carries).
    public mutating func succeeded() -> [AcceptedAuthentication] {
        // Nothing sent (most requests): no arrays made.
        if sentToServer == nil && sentToProxy == nil && pending == nil { return [] }
        let accepted = [sentToServer, sentToProxy].compactMap { sent in
            sent.map { AcceptedAuthentication(space: $0.space, credential: $0.credential, digest: $0.digest) }
        }
        sentToServer = nil
        sentToProxy = nil
        pending = nil
        return accepted
    }

    // MARK: helpers

    private func challenge(_ candidate: SupportedChallenge, space: ProtectionSpace) -> AuthenticationChallenge {
        AuthenticationChallenge(protectionSpace: space, previousFailureCount: failures[space, default: 0],
                                proposedCredential: refused[space], serverChallenge: candidate.serverChallenge)
    }

    /// Builds the field for `candidate` with `credential` and records it as sent. For Digest, a
    /// nonce already used for this space continues its count; a new nonce gets a new cnonce.
    private mutating func answer(_ candidate: SupportedChallenge, with credential: Credential,
                                 request: ChallengedRequest, isProxy: Bool) -> Action {
        let space = Pending.space(candidate, request, isProxy)
        let user = credential.user ?? "", password = credential.password ?? ""
        let value: String
        var nonceState: DigestNonceState?
        switch candidate {
        case .basic:
            do throws(BasicAuthenticationError) {
                value = try BasicAuthentication.authorization(user: user, password: password)
            } catch {
                return .fail(.basic(error))
            }
        case .digest(let digest, _):
            var state = if let old = lastDigest[space], old.challenge.nonce == digest.nonce {
                DigestNonceState(challenge: digest, cnonce: old.cnonce, nonceCount: old.nonceCount)
            } else {
                DigestNonceState(challenge: digest, cnonce: cnonce())
            }
            do throws(DigestAuthenticationError) {
                value = try state.nextAuthorization(user: user, password: password, method: request.method,
                                                    uri: request.uri, body: request.body)
            } catch {
                return .fail(.digest(error))
            }
            nonceState = state
            lastDigest[space] = state
        }
        let sent = Sent(space: space, credential: credential, digest: nonceState)
        if isProxy { sentToProxy = sent } else { sentToServer = sent }
        return .retry(field: Self.field(isProxy: isProxy), value: value)
    }

    /// Why none of `challenges` can be answered: the first Digest challenge's own error when
    /// there is one, else the schemes offered.
    private static func unusable(_ challenges: [AuthChallenge], body: DigestEntityBody) -> AuthenticationFailure {
        for challenge in challenges where challenge.hasScheme("Digest") {
            do throws(DigestAuthenticationError) {
                let digest = try DigestChallenge(challenge)
                if digest.qopOptions.isEmpty, digest.algorithm.isSession {
                    return .digest(.unsupportedQOP("none, with \(digest.algorithm.rawValue)"))
                }
                return .digest(.bodyDigestUnavailable)
            } catch {
                return .digest(error)
            }
        }
        var schemes: [String] = []
        for challenge in challenges where !schemes.contains(where: { $0.caseInsensitiveEquals(challenge.scheme) }) && schemes.count < 8 {
            schemes.append(String(challenge.scheme.prefix(32)))
        }
        return .noSupportedChallenge(schemes: schemes)
    }
}
