import X509

/// How a session's https connections are secured: certificate verification and its trust roots,
/// revocation lists, public-key pins, protocol versions and ciphers, the client identity, and
/// session resumption. Every value is loaded by the caller (with ``PublicKeyPin``,
/// ``ClientIdentity``, ``CertificateRevocationList``, ``CADirectory``, ``TLSVersionPolicy``), so
/// a file that cannot be used is reported before any connection; only
/// ``additionalTrustRootFiles`` are read by the session (on its first https connection).
///
/// The checks, in order, for each new connection (the server-trust challenge of Apple's URL
/// Loading System, `NSURLAuthenticationMethodServerTrust`):
/// 1. with ``Verification/full``: the chain to a trusted root, validity dates, the host name or IP
///    address (RFC 5280, RFC 6125), and, when ``revocationLists`` are given, revocation (RFC 5280
///    §6.3); the session delegate may then accept or reject;
/// 2. ``pinnedPublicKey``, whatever step 1 and the delegate said, also with ``Verification/none``
///    (wget's and curl's semantics): a pin mismatch always fails the connection.
public struct TLSSettings: Sendable, Equatable {
    /// How a server's certificate chain is checked.
    public enum Verification: Sendable, Equatable {
        /// Chain to a trusted root, validity dates and the host name (or IP address) are checked;
        /// the delegate's server-trust challenge may still accept or reject.
        case full
        /// Nothing is checked (`--no-check-certificate` / `--insecure`) except a pinned public key.
        /// The delegate is not asked.
        case none
    }

    public var verification: Verification = .full
    /// Use the system's trust roots (`SSL_CERT_FILE` when set, else the distribution's bundle).
    public var useSystemTrustRoots: Bool = true
    /// PEM files whose certificates are trusted in addition (`--ca-certificate`).
    public var additionalTrustRootFiles: [String] = []
    /// Certificates trusted in addition, e.g. those of ``CADirectory/load(path:)``
    /// (`--ca-directory`, `--capath`). Tried before the system roots, like the files.
    public var additionalTrustRoots: [Certificate] = []
    /// Certificate revocation lists (`--crl-file`, `--crlfile`). When not empty, every
    /// certificate of a verified chain below its trust anchor needs a current CRL from its issuer
    /// among these, and must not be listed (OpenSSL's `X509_V_FLAG_CRL_CHECK_ALL`, as wget and
    /// curl do). Ignored with ``Verification/none``.
    public var revocationLists: [CertificateRevocationList] = []
    /// The server's leaf certificate must carry one of these public keys (`--pinnedpubkey`);
    /// checked even with ``Verification/none``, and a session delegate's `.accept` does not
    /// override a mismatch. nil: no pinning.
    public var pinnedPublicKey: PublicKeyPin?
    /// The protocol versions and TLS 1.2 ciphers offered (default: TLS 1.2 and 1.3, NIOSSL's
    /// ciphers).
    public var versionPolicy = TLSVersionPolicy()
    /// The identity presented when a server asks for a client certificate, unless the session
    /// delegate answers the client-certificate challenge otherwise (NSURLCredential's identity).
    /// nil: no certificate is sent; a server that requires one refuses the handshake.
    public var clientIdentity: ClientIdentity?
    /// Resume TLS sessions (RFC 5077 tickets, RFC 8446 §2.2 pre-shared keys, TLS 1.2 session IDs)
    /// on later connections to the same host and port within the session: an abbreviated
    /// handshake instead of a full one. Sessions are kept in memory only, per session, and only
    /// from handshakes whose server passed every check above.
    public var resumesSessions = true

    public init() {}
}
