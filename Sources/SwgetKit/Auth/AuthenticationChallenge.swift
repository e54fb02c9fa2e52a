/// A challenge put to the delegate (or to the default handling): the counterpart of
/// NSURLAuthenticationChallenge in Apple's URL Loading System. Produced by
/// ``AuthenticationState/challenged(status:challenges:request:)``.
public struct AuthenticationChallenge: Sendable, Equatable {
    /// Where the credential goes: host, port, scheme, realm, method (Basic or Digest), proxy or not.
    public let protectionSpace: ProtectionSpace
    /// How many credentials for this space the server refused in this task (0 on the first ask).
    public let previousFailureCount: Int
    /// The credential that was refused for this space, if any. The default handling may put the
    /// storage's default credential here before asking the delegate (Apple's behaviour).
    public var proposedCredential: Credential?
    /// The 401 or 407 response; the machine leaves it nil, the task driver sets it.
    public var failureResponse: Response?
    /// The server's challenge the space comes from (scheme and parameters as sent).
    public let serverChallenge: AuthChallenge

    /// A challenge for `protectionSpace`.
    public init(protectionSpace: ProtectionSpace, previousFailureCount: Int, proposedCredential: Credential?,
                failureResponse: Response? = nil, serverChallenge: AuthChallenge) {
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.proposedCredential = proposedCredential
        self.failureResponse = failureResponse
        self.serverChallenge = serverChallenge
    }
}

/// The request a 401 or 407 answered, as the authentication machine needs it.
struct ChallengedRequest: Sendable, Equatable {
    /// The origin's host, port and scheme for a 401; the proxy's for a 407.
    public let host: String
    /// The port of that host.
    public let port: Int
    /// Its scheme ("http", "https").
    public let scheme: String
    /// The method and request-target as sent (Digest hashes them).
    public let method: String
    /// The request-target as sent.
    public let uri: String
    /// The body, for Digest `auth-int`.
    public let body: DigestEntityBody

    /// A challenged request.
    public init(host: String, port: Int, scheme: String, method: String, uri: String, body: DigestEntityBody = .empty) {
        self.host = host
        self.port = port
        self.scheme = scheme
        self.method = method
        self.uri = uri
        self.body = body
    }
}

/// The answer to an ``AuthenticationChallenge``, once the driver has consulted the delegate,
/// the storage, the URL's userinfo and `.netrc` (in that order; the order is the driver's).
/// Apple's "cancel" disposition is the driver's own business (it cancels the task).
enum CredentialDecision: Sendable, Equatable {
    /// Retry with this credential.
    case use(Credential)
    /// Nothing to answer with: the task fails with ``AuthenticationFailure/credentialsRequired(_:)``.
    case noCredential
    /// Try the server's next protection space (another scheme or realm offered in the same
    /// answer), if any (NSURLSessionAuthChallengeRejectProtectionSpace).
    case rejectProtectionSpace
}

/// Why authentication ended the task. The driver maps every case to its authentication error
/// (the command's exit 6).
public enum AuthenticationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No challenge of a scheme swget speaks (Basic, Digest); the schemes offered (at most 8).
    case noSupportedChallenge(schemes: [String])
    /// The server asks for credentials and none were given.
    case credentialsRequired(ProtectionSpace)
    /// The server refused the credential again after one retry for this space.
    case rejected(ProtectionSpace)
    /// More than ``AuthenticationState/maximumChallenges`` challenges in one task.
    case tooManyChallenges
    /// The credential cannot be sent with Basic.
    case basic(BasicAuthenticationError)
    /// The Digest challenge cannot be answered.
    case digest(DigestAuthenticationError)
    /// An event that makes no sense in the machine's state (a driver bug, reported, not trapped).
    case unexpectedEvent(String)

    /// One line, for the user.
    public var description: String {
        switch self {
        case .noSupportedChallenge(let schemes):
            schemes.isEmpty ? "the server asks for authentication without a usable challenge"
                : "unsupported authentication scheme (\(schemes.joined(separator: ", ")))"
        case .credentialsRequired(let space): "authentication required for \(space)"
        case .rejected(let space): "authentication failed for \(space): credentials refused"
        case .tooManyChallenges: "too many authentication challenges"
        case .basic(let error): error.description
        case .digest(let error): error.description
        case .unexpectedEvent(let what): "internal: \(what)"
        }
    }
}

/// A credential the server accepted, to be remembered by ``CredentialStorage/remember(_:)``.
struct AcceptedAuthentication: Sendable, Equatable {
    /// The space that accepted it.
    public let space: ProtectionSpace
    /// The credential accepted.
    public let credential: Credential
    /// For Digest, the nonce to reuse with its last count.
    public let digest: DigestNonceState?
}

/// An `Authorization` or `Proxy-Authorization` value sent before any challenge, from
/// ``CredentialStorage/preemptiveAuthorization(host:port:scheme:isProxy:method:uri:body:)`` or,
/// for `--auth-no-challenge`, ``basic(_:for:)``. Pass it to
/// ``AuthenticationState/sentPreemptively(_:)`` when the request carries it.
struct PreemptiveAuthorization: Sendable, Equatable {
    /// The space the credential was accepted for.
    public let space: ProtectionSpace
    /// The credential sent.
    public let credential: Credential
    /// The field's value.
    public let value: String
    /// For Digest, the nonce state after this request's count.
    public let digest: DigestNonceState?

    /// A preemptive authorization.
    public init(space: ProtectionSpace, credential: Credential, value: String, digest: DigestNonceState?) {
        self.space = space
        self.credential = credential
        self.value = value
        self.digest = digest
    }

    /// "Authorization", or "Proxy-Authorization" for a proxy's space.
    public var field: String { AuthenticationState.field(isProxy: space.isProxy) }

    /// Basic before any challenge (wget's `--auth-no-challenge`) to the origin of `space`; use a
    /// space with a nil realm and method `.httpBasic`, which then stands for any Basic realm of
    /// that origin.
    public static func basic(_ credential: Credential, for space: ProtectionSpace) throws(BasicAuthenticationError) -> PreemptiveAuthorization {
        let value = try BasicAuthentication.authorization(user: credential.user ?? "", password: credential.password ?? "")
        return PreemptiveAuthorization(space: space, credential: credential, value: value, digest: nil)
    }
}

/// A server challenge swget can answer, ranked: Digest over Basic; among Digest, SHA-512-256 >
/// SHA-256 > MD5, and with `qop` over RFC 2069's form without.
enum SupportedChallenge: Sendable, Equatable {
    /// A Digest challenge, checked, with the server's challenge.
    case digest(DigestChallenge, AuthChallenge)
    /// A Basic challenge.
    case basic(AuthChallenge)

    /// The server's challenge.
    public var serverChallenge: AuthChallenge {
        switch self {
        case .digest(_, let challenge), .basic(let challenge): challenge
        }
    }

    /// `.httpDigest` or `.httpBasic`.
    public var method: AuthenticationMethod {
        switch self {
        case .digest: .httpDigest
        case .basic: .httpBasic
        }
    }

    /// The realm (Basic's may be missing, though RFC 7617 requires it).
    public var realm: String? {
        switch self {
        case .digest(let digest, _): digest.realm
        case .basic(let challenge): challenge.parameter("realm")
        }
    }

    /// Higher is preferred.
    var rank: Int {
        switch self {
        case .digest(let digest, _): 10 + digest.algorithm.strength * 2 + (digest.qopOptions.isEmpty ? 0 : 1)
        case .basic: 1
        }
    }

    /// The challenges of `challenges` that can answer a request with `body`, strongest first
    /// (server order among equals). Digest challenges that cannot be used are left out: malformed
    /// ones, `-sess` without `qop`, and `auth-int` alone when the body's digest is unavailable.
    public static func ranked(_ challenges: [AuthChallenge], body: DigestEntityBody) -> [SupportedChallenge] {
        var supported: [SupportedChallenge] = []
        for challenge in challenges {
            if challenge.hasScheme("Basic"), challenge.token68 == nil {
                supported.append(.basic(challenge))
            } else if let digest = try? DigestChallenge(challenge) {
                if digest.qopOptions.isEmpty, digest.algorithm.isSession { continue }
                if DigestAuthentication.chooseQOP(digest) == .authInt, body.digest(digest.algorithm.hash) == nil { continue }
                supported.append(.digest(digest, challenge))
            }
        }
        return supported.enumerated().sorted { ($0.element.rank, -$0.offset) > ($1.element.rank, -$1.offset) }.map(\.element)
    }
}
