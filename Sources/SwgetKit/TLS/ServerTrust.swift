/// A server-trust challenge: the certificate chain an https server presented, and what the
/// default evaluation (chain to a trusted root, validity, host name) concluded about it.
/// The delegate answers with a ``TrustDisposition`` (NSURLAuthenticationChallenge in Apple's URL
/// Loading System, with protection space `NSURLAuthenticationMethodServerTrust`).
public struct ServerTrustChallenge: Sendable {
    /// The host name (or IP literal) the task connected to.
    public let host: String
    /// The port the task connected to on that host.
    public let port: Int
    /// The chain as presented, leaf first, each certificate DER-encoded.
    public let certificateChain: [[UInt8]]
    /// The verdict of default handling.
    public let defaultEvaluation: TrustEvaluation
}

/// The outcome of evaluating a server's certificate chain.
public enum TrustEvaluation: Sendable, Equatable {
    case trusted
    /// Not trusted; `reason` is one line ("unable to get local issuer certificate",
    /// "certificate expired", "host name mismatch").
    case untrusted(reason: String)
}

/// A delegate's answer to a ``ServerTrustChallenge``.
public enum TrustDisposition: Sendable, Equatable {
    /// Use the default evaluation's verdict (what happens when the delegate does not answer).
    case performDefaultHandling
    /// Trust this server for this connection whatever the default evaluation said
    /// (NSURLSessionAuthChallengeUseCredential with a trust credential): pinning and private CAs
    /// are built on this.
    case accept
    /// Refuse the connection even if the default evaluation trusted it
    /// (NSURLSessionAuthChallengeCancelAuthenticationChallenge).
    case reject
}
