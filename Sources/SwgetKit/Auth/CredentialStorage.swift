import Synchronization

/// A session's credentials: the counterpart of NSURLCredentialStorage in Apple's URL Loading
/// System, in memory only (an ephemeral session, and every session today, writes nothing to disk).
///
/// Credentials are kept per ``ProtectionSpace``, keyed by user name, with one default credential
/// per space. Only `.forSession` credentials are stored; `.none` ones are ignored by every setter.
/// Every method is thread-safe (one lock).
///
/// Beyond Apple's model it remembers, for each space where a credential was accepted, what is
/// needed to send it again before the server asks (``remember(_:)``,
/// ``preemptiveAuthorization(host:port:scheme:isProxy:method:uri:body:)``): for Basic nothing more,
/// for Digest the server's nonce with its client nonce and count, advanced under the lock so that
/// concurrent requests (segments) never send the same count twice.
///
/// Bounded: at most ``maximumSpaces`` protection spaces (realms come from servers); beyond it the
/// least recently used space is forgotten.
public final class CredentialStorage: Sendable {
    /// The process-wide store that default and background sessions share (ephemeral sessions
    /// get one of their own).
    public static let shared = CredentialStorage()

    /// The most protection spaces kept.
    public static let maximumSpaces = 1024

    private struct Space {
        var credentials: [String: Credential] = [:]
        var defaultUser: String?
        var digest: DigestNonceState?
        var lastUse: UInt64 = 0
    }

    private struct State {
        var spaces: [ProtectionSpace: Space] = [:]
        var clock: UInt64 = 0

        mutating func touch(_ space: ProtectionSpace) {
            clock += 1
            spaces[space, default: Space()].lastUse = clock
            if spaces.count > CredentialStorage.maximumSpaces,
               let oldest = spaces.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                spaces[oldest] = nil
            }
        }

        mutating func dropIfEmpty(_ space: ProtectionSpace) {
            if let entry = spaces[space], entry.credentials.isEmpty { spaces[space] = nil }
        }
    }

    private let state = Mutex(State())

    /// An empty storage.
    public init() {}

    /// The credentials stored for `space`, by user name.
    public func credentials(for space: ProtectionSpace) -> [String: Credential] {
        state.withLock { $0.spaces[space]?.credentials ?? [:] }
    }

    /// Every stored credential, by protection space and user name.
    public var allCredentials: [ProtectionSpace: [String: Credential]] {
        state.withLock { state in state.spaces.compactMapValues { $0.credentials.isEmpty ? nil : $0.credentials } }
    }

    /// Stores `credential` for `space` (replacing one with the same user), unless its persistence
    /// is `.none`.
    public func set(_ credential: Credential, for space: ProtectionSpace) {
        guard credential.persistence != .none else { return }
        state.withLock { state in
            state.touch(space)
            state.spaces[space]?.credentials[credential.user ?? ""] = credential
        }
    }

    /// Removes `credential` (by user name) from `space`; if it was the default, the space has no
    /// default any more, and any remembered Digest nonce of the space is forgotten.
    public func remove(_ credential: Credential, for space: ProtectionSpace) {
        state.withLock { state in
            let user = credential.user ?? ""
            guard state.spaces[space]?.credentials.removeValue(forKey: user) != nil else { return }
            if state.spaces[space]?.defaultUser == user {
                state.spaces[space]?.defaultUser = nil
                state.spaces[space]?.digest = nil
            }
            state.dropIfEmpty(space)
        }
    }

    /// Forgets everything.
    public func removeAll() {
        state.withLock { $0.spaces = [:] }
    }

    /// The default credential of `space`, or nil.
    public func defaultCredential(for space: ProtectionSpace) -> Credential? {
        state.withLock { state in
            guard let entry = state.spaces[space], let user = entry.defaultUser else { return nil }
            return entry.credentials[user]
        }
    }

    /// Stores `credential` for `space` and makes it the space's default, unless its persistence
    /// is `.none`.
    public func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) {
        guard credential.persistence != .none else { return }
        state.withLock { state in
            state.touch(space)
            let user = credential.user ?? ""
            if state.spaces[space]?.defaultUser != user { state.spaces[space]?.digest = nil }
            state.spaces[space]?.credentials[user] = credential
            state.spaces[space]?.defaultUser = user
        }
    }

    /// The most recently used space with the origin of (`host`, `port`, `scheme`, `isProxy`) that
    /// has a default credential, with that credential: a space seen before, whatever its realm.
    public func defaultCredential(host: String, port: Int, scheme: String, isProxy: Bool) -> (space: ProtectionSpace, credential: Credential)? {
        let origin = ProtectionSpace(host: host, port: port, scheme: scheme, realm: nil, isProxy: isProxy)
        return state.withLock { state in
            Self.candidates(in: state, origin: origin).first.map { ($0.space, $0.credential) }
        }
    }

    /// Records a credential the server accepted (``AuthenticationState/succeeded()``): a
    /// `.forSession` credential becomes its space's default, with the Digest nonce state if any,
    /// so later requests can send it at once. `.none` credentials are not remembered.
    func remember(_ accepted: AcceptedAuthentication) {
        guard accepted.credential.persistence != .none else { return }
        state.withLock { state in
            state.touch(accepted.space)
            let user = accepted.credential.user ?? ""
            state.spaces[accepted.space]?.credentials[user] = accepted.credential
            state.spaces[accepted.space]?.defaultUser = user
            state.spaces[accepted.space]?.digest = accepted.digest
        }
    }

    /// Some protection space holds a credential (a quick test before a request looks for one).
    var holdsCredentials: Bool { state.withLock { !$0.spaces.isEmpty } }

    /// What to send, before any challenge, with a request `method uri` to the origin (`host`,
    /// `port`, `scheme`) or proxy (`isProxy`): the most recently used space of that origin with a
    /// default credential: Basic from the credential, Digest with the remembered nonce and the
    /// next count (advanced here). Nil when there is none, when a Digest space has no nonce left,
    /// or when the credential cannot be encoded. Paths are not compared (Apple's protection spaces
    /// have none): within one origin, the last space that accepted a credential is tried.
    func preemptiveAuthorization(host: String, port: Int, scheme: String, isProxy: Bool,
                                        method: String, uri: String, body: DigestEntityBody) -> PreemptiveAuthorization? {
        let origin = ProtectionSpace(host: host, port: port, scheme: scheme, realm: nil, isProxy: isProxy)
        return state.withLock { state in
            for candidate in Self.candidates(in: state, origin: origin) {
                let credential = candidate.credential
                if candidate.space.authenticationMethod == .httpDigest {
                    guard var digest = state.spaces[candidate.space]?.digest,
                          let value = try? digest.nextAuthorization(user: credential.user ?? "", password: credential.password ?? "",
                                                                    method: method, uri: uri, body: body)
                    else { continue }
                    state.spaces[candidate.space]?.digest = digest
                    state.touch(candidate.space)
                    return PreemptiveAuthorization(space: candidate.space, credential: credential, value: value, digest: digest)
                }
                if let value = try? BasicAuthentication.authorization(user: credential.user ?? "", password: credential.password ?? "") {
                    state.touch(candidate.space)
                    return PreemptiveAuthorization(space: candidate.space, credential: credential, value: value, digest: nil)
                }
            }
            return nil
        }
    }

    private static func candidates(in state: State, origin: ProtectionSpace) -> [(space: ProtectionSpace, credential: Credential)] {
        state.spaces
            .filter { $0.key.matchesOrigin(of: origin) }
            .sorted { $0.value.lastUse > $1.value.lastUse }
            .compactMap { space, entry in entry.defaultUser.flatMap { entry.credentials[$0] }.map { (space, $0) } }
    }
}
