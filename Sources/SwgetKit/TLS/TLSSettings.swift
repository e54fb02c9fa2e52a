/// Certificate verification and trust roots for https connections.
public struct TLSSettings: Sendable, Equatable {
    /// How a server's certificate chain is checked.
    public enum Verification: Sendable, Equatable {
        /// Chain to a trusted root, validity dates and the host name (or IP address) are checked;
        /// the delegate's server-trust challenge may still accept or reject.
        case full
        /// Nothing is checked (`--no-check-certificate` / `--insecure`). The delegate is not asked.
        case none
    }

    public var verification: Verification = .full
    /// Use the system's trust roots (`SSL_CERT_FILE` when set, else the distribution's bundle).
    public var useSystemTrustRoots: Bool = true
    /// PEM files whose certificates are trusted in addition (`--ca-certificate`).
    public var additionalTrustRootFiles: [String] = []

    public init() {}
}
