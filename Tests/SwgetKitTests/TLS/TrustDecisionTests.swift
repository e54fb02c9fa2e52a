import Testing
@testable import SwgetKit

@Suite("TLS: the trust decision, failure reasons and handshake failures")
struct TrustDecisionTests {
    struct DecisionCase: CustomTestStringConvertible, Sendable {
        let name: String
        let evaluation: TrustEvaluation?
        let disposition: TrustDisposition
        let pin: String?
        let expected: TrustEvaluation
        var testDescription: String { name }
    }

    static let bad = TrustEvaluation.untrusted(reason: "certificate has expired")
    static let pinReason = "public key pinning: the server's key sha256//x is not pinned"

    static let decisions: [DecisionCase] = [
        DecisionCase(name: "trusted, no delegate, no pin", evaluation: .trusted, disposition: .performDefaultHandling, pin: nil,
                     expected: .trusted),
        DecisionCase(name: "untrusted stands by default", evaluation: bad, disposition: .performDefaultHandling, pin: nil, expected: bad),
        DecisionCase(name: "the delegate accepts an untrusted chain", evaluation: bad, disposition: .accept, pin: nil, expected: .trusted),
        DecisionCase(name: "the delegate rejects a trusted chain", evaluation: .trusted, disposition: .reject, pin: nil,
                     expected: .untrusted(reason: "rejected by the session delegate")),
        DecisionCase(name: "a pin mismatch beats a trusted chain", evaluation: .trusted, disposition: .performDefaultHandling,
                     pin: pinReason, expected: .untrusted(reason: pinReason)),
        DecisionCase(name: "a pin mismatch beats the delegate's accept", evaluation: bad, disposition: .accept, pin: pinReason,
                     expected: .untrusted(reason: pinReason)),
        DecisionCase(name: "a pin mismatch without verification", evaluation: nil, disposition: .performDefaultHandling,
                     pin: pinReason, expected: .untrusted(reason: pinReason)),
        DecisionCase(name: "no verification, pin matches", evaluation: nil, disposition: .performDefaultHandling, pin: nil,
                     expected: .trusted),
        DecisionCase(name: "the chain's failure is told before the pin's", evaluation: bad, disposition: .performDefaultHandling,
                     pin: pinReason, expected: bad),
    ]

    @Test(arguments: decisions)
    func decision(_ c: DecisionCase) {
        #expect(TrustDecision.decide(evaluation: c.evaluation, disposition: c.disposition, pinMismatch: c.pin) == c.expected)
    }

    struct ReasonCase: CustomTestStringConvertible, Sendable {
        let name: String
        let reasons: [String]
        let expected: String
        var testDescription: String { name }
    }

    static let revoked = "certificate revoked: serial 2002 of CN=localhost is listed by the CRL of CN=CA, reason keyCompromise"

    static let reasons: [ReasonCase] = [
        ReasonCase(name: "no chain at all", reasons: [], expected: "unable to get local issuer certificate (no chain to a trusted root)"),
        ReasonCase(name: "expired", reasons: ["RFC5280Policy: Certificate <subject: CN=name.example, SAN ip…> has expired"],
                   expected: "certificate has expired"),
        ReasonCase(name: "not yet valid", reasons: ["RFC5280Policy: Certificate <CN=x> is not yet valid"],
                   expected: "certificate is not yet valid"),
        ReasonCase(name: "SAN mismatch", reasons: ["None of the names in SAN extension matched: [dns: other.example]"],
                   expected: "certificate does not match the host name"),
        ReasonCase(name: "common name mismatch", reasons: ["Common name x does not match expected hostname"],
                   expected: "certificate does not match the host name"),
        // The revocation texts name certificates: words like "name", "san" or "expired" inside them
        // must not turn them into another failure.
        ReasonCase(name: "revoked, with misleading words in the names", reasons: [
            "certificate revoked: serial 01 of CN=expired name san ip is listed by the CRL of CN=CA"],
                   expected: "certificate revoked: serial 01 of CN=expired name san ip is listed by the CRL of CN=CA"),
        ReasonCase(name: "a revocation wins over another chain's failure", reasons: [
            "RFC5280Policy: Certificate <CN=x> has expired", revoked], expected: revoked),
        ReasonCase(name: "undetermined revocation", reasons: ["revocation check failed: no CRL signed by CN=Sub CA"],
                   expected: "revocation check failed: no CRL signed by CN=Sub CA"),
        ReasonCase(name: "a CA that is not a CA is not a name failure", reasons: [
            "RFC5280Policy: Certificate <subjectAlternativeName: san.example> is not marked as a CA"],
                   expected: "RFC5280Policy: Certificate <subjectAlternativeName: san.example> is not marked as a CA"),
        ReasonCase(name: "control characters are replaced", reasons: ["certificate revoked: CN=\u{1B}[31mred\n"],
                   expected: "certificate revoked: CN=?[31mred?"),
        ReasonCase(name: "long texts are cut", reasons: [String(repeating: "x", count: 100_000)],
                   expected: String(repeating: "x", count: 200)),
    ]

    @Test(arguments: reasons)
    func failureReason(_ c: ReasonCase) {
        #expect(TrustFailureReason.describe(c.reasons) == c.expected)
    }

    struct HandshakeCase: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let expected: String
        var testDescription: String { name }
    }

    static let handshakes: [HandshakeCase] = [
        HandshakeCase(name: "version alert",
                      text: "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268436526 error:1000042e:SSL routines:OPENSSL_internal:TLSV1_ALERT_PROTOCOL_VERSION at /x/tls_record.cc:491]))",
                      expected: "no TLS version in common with the server"),
        HandshakeCase(name: "certificate required", text: "error:1000045c:SSL routines:OPENSSL_internal:TLSV13_ALERT_CERTIFICATE_REQUIRED at x",
                      expected: "the server requires a client certificate"),
        HandshakeCase(name: "an unknown code in words", text: "x OPENSSL_internal:SOME_NEW_REASON at y", expected: "some new reason"),
        HandshakeCase(name: "no code at all", text: "uncleanShutdown", expected: "uncleanShutdown"),
        HandshakeCase(name: "an empty code", text: "OPENSSL_internal: at", expected: "OPENSSL_internal: at"),
        HandshakeCase(name: "a huge text", text: String(repeating: "y", count: 1_000_000), expected: String(repeating: "y", count: 200)),
        HandshakeCase(name: "a code past the first 4 KiB is not looked for",
                      text: String(repeating: "z", count: 5000) + "OPENSSL_internal:NO_SHARED_CIPHER", expected: String(repeating: "z", count: 200)),
    ]

    @Test(arguments: handshakes)
    func handshakeFailure(_ c: HandshakeCase) {
        #expect(TLSHandshakeFailure.describe(c.text) == c.expected)
    }

    @Test func connectionInfoTextsAreBounded() throws {
        let long = String(repeating: "n", count: 10_000)
        let summary = CertificateSummary(subject: long, issuer: long, notValidBefore: .distantPast, notValidAfter: .distantFuture)
        #expect(summary.subject.count == TLSConnectionInfo.maximumTextLength)
        #expect(summary.issuer.count == TLSConnectionInfo.maximumTextLength)
        let info = TLSConnectionInfo(host: "h", port: 1, protocolVersion: long, cipherSuite: long, sessionResumed: false,
                                     serverCertificate: summary)
        #expect(info.protocolVersion.count == TLSConnectionInfo.maximumTextLength)
        #expect(info.cipherSuite?.count == TLSConnectionInfo.maximumTextLength)
        #expect(CertificateSummary(derEncoded: []) == nil)
        #expect(CertificateSummary(derEncoded: [0x30, 0x82, 0xFF, 0xFF, 0x01]) == nil)
        #expect(TLSConnectionInfo.name(of: .tlsv13) == "TLSv1.3")
        #expect(TLSConnectionInfo.name(of: nil) == "unknown")
    }
}
