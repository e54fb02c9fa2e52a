/// The final word on a server's certificate for one connection, from the three things that have a
/// say (a pure function, tested by a table):
/// - the default evaluation (chain, dates, name, revocation), absent when verification is off;
/// - the session delegate's answer to the server-trust challenge;
/// - the public-key pin, which nothing overrides (curl's and wget's `--pinnedpubkey`).
///
/// Rules, in order:
/// 1. An untrusted evaluation stands unless the delegate accepts (reason: the evaluation's).
/// 2. A delegate's `.reject` refuses ("rejected by the session delegate").
/// 3. A pin mismatch refuses (reason: the pin's), even after `.accept` or without verification.
/// 4. Otherwise the server is trusted.
enum TrustDecision {
    /// The verdict. `evaluation` nil means verification is off; `pinMismatch` is the pin's
    /// one-line reason (``PublicKeyPin/mismatch(chain:)``), nil when the pin matches or there
    /// is none.
    static func decide(evaluation: TrustEvaluation?, disposition: TrustDisposition,
                       pinMismatch: String?) -> TrustEvaluation {
        if case .untrusted = evaluation, disposition != .accept, let evaluation { return evaluation }
        if disposition == .reject { return .untrusted(reason: "rejected by the session delegate") }
        if let pinMismatch { return .untrusted(reason: pinMismatch) }
        return .trusted
    }
}

/// One line saying why swift-certificates' `Verifier` refused a chain, from the failure reasons
/// it gives (one per candidate chain). Its texts embed whole certificates (subject, SANs, key),
/// so words are not searched anywhere in them: each policy's own prefix is recognised.
/// - ``RevocationChecker``'s reasons ("certificate revoked: …", "revocation check failed: …")
///   are kept as they are: they name the certificate and the CRL.
/// - RFC5280Policy's expiry ("… has expired", "… is not yet valid") become OpenSSL's wording.
/// - ServerIdentityPolicy's name failures become "certificate does not match the host name".
/// - No candidate chain at all: "unable to get local issuer certificate".
/// - Anything else: its first 200 characters, control characters replaced.
///
/// When candidate chains failed for different reasons, a revocation reason wins (a chain that
/// was complete and current but revoked is the story to tell), then the first reason.
enum TrustFailureReason {
    static let revokedPrefixes = ["certificate revoked", "revocation check failed"]

    static func describe(_ reasons: [String]) -> String {
        let chosen = reasons.first { reason in revokedPrefixes.contains { reason.hasPrefix($0) } } ?? reasons.first
        guard let first = chosen else { return "unable to get local issuer certificate (no chain to a trusted root)" }
        if revokedPrefixes.contains(where: { first.hasPrefix($0) }) { return shown(first) }
        if first.hasPrefix("RFC5280Policy:") {
            if first.hasSuffix(" has expired") { return "certificate has expired" }
            if first.hasSuffix(" is not yet valid") { return "certificate is not yet valid" }
        }
        let nameFailures = ["None of the names in SAN extension matched", "No SAN extension and no common name",
                            "Error parsing SAN field", "Common name "]
        if nameFailures.contains(where: { first.hasPrefix($0) }) { return "certificate does not match the host name" }
        return shown(first)
    }

    /// At most 200 characters, C0 controls and DEL replaced by '?'.
    private static func shown(_ text: String) -> String {
        String(text.prefix(200).map { character in
            character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? "?" : character
        })
    }
}
