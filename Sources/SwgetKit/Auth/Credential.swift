/// What answers an authentication challenge: the counterpart of NSURLCredential in Apple's URL
/// Loading System. Today a user name and password; client identities (TLS client certificates)
/// will be another kind, which is why ``user`` and ``password`` are optional as in Apple's API.
///
/// The password never appears in `description`, `debugDescription` or a mirror (`dump`), so a
/// credential can be logged.
public struct Credential: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How long a credential is kept (NSURLCredentialPersistence). There is no `.permanent`:
    /// swget keeps no keychain; `.netrc` is the file users already have.
    public enum Persistence: Hashable, Sendable {
        /// Used for this request only; never stored.
        case none
        /// Kept in the session's ``CredentialStorage`` until the session ends.
        case forSession
    }

    private enum Kind: Hashable, Sendable {
        case password(user: String, password: String)
    }

    private let kind: Kind
    /// How long it is kept.
    public let persistence: Persistence

    /// A user name and password credential.
    public init(user: String, password: String, persistence: Persistence) {
        kind = .password(user: user, password: password)
        self.persistence = persistence
    }

    /// The user name; nil for credentials without one (client identities, later).
    public var user: String? {
        switch kind { case .password(let user, _): user }
    }

    /// The password; nil for credentials without one.
    public var password: String? {
        switch kind { case .password(_, let password): password }
    }

    /// True when the credential has a password.
    public var hasPassword: Bool { password != nil }

    /// The same credential with another persistence.
    public func with(persistence: Persistence) -> Credential {
        switch kind {
        case .password(let user, let password): Credential(user: user, password: password, persistence: persistence)
        }
    }

    /// `Credential(user: "name", password: <redacted>, persistence: forSession)`.
    public var description: String {
        "Credential(user: \"\(user ?? "")\", password: <redacted>, persistence: \(persistence))"
    }

    /// Same as `description`.
    public var debugDescription: String { description }

    /// User and persistence only.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user as Any, "persistence": persistence], displayStyle: .struct)
    }
}
