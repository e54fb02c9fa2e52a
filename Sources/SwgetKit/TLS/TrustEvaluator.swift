#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOSSL
import X509

/// Default evaluation of server certificate chains with swift-certificates: RFC 5280 path
/// building to the trust roots, validity dates, the server's name or IP address, and, with
/// revocation lists, revocation (``CRLVerifierPolicy``, last, so that an expired or misnamed
/// certificate is reported as such). It runs inside NIOSSL's custom verification callback so
/// that the session's server-trust challenge can accept, reject or defer to this verdict.
final class TrustEvaluator: Sendable {
    /// The `--ca-certificate` and `--ca-directory` roots alone, tried first: when they suffice,
    /// the system bundle (some 150 certificates, several MB parsed) is never loaded.
    private let extraRoots: CertificateStore?
    /// Checks chains against the CRLs; nil without CRLs.
    private let revocation: RevocationChecker?
    /// Roots from SSL_CERT_FILE plus the extra ones; the distribution bundle joins them on
    /// first use when `usesSystemBundle`.
    private let fileRoots: [Certificate]
    private let usesSystemBundle: Bool

    /// Loads the trust roots `settings` ask for. Throws a ``SessionError/fileIO``-category error
    /// naming the file when an extra CA file cannot be read or holds no certificate.
    init(settings: TLSSettings, environment: [String: String]) throws(SessionError) {
        var extra = settings.additionalTrustRoots
        for path in settings.additionalTrustRootFiles {
            extra += try Self.loadPEMCertificates(path: path)
        }
        var fileRoots = extra
        var usesSystemBundle = false
        if settings.useSystemTrustRoots {
            if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
                fileRoots += try Self.loadPEMCertificates(path: file)
            } else {
                usesSystemBundle = true
            }
        }
        self.fileRoots = fileRoots
        self.usesSystemBundle = usesSystemBundle
        self.extraRoots = extra.isEmpty ? nil : CertificateStore(extra)
        self.revocation = settings.revocationLists.isEmpty ? nil : RevocationChecker(lists: settings.revocationLists)
    }

    /// Every trusted root. Touching `systemTrustRoots` starts parsing the bundle, so this runs
    /// only when a validation needs it.
    private var roots: CertificateStore {
        usesSystemBundle ? CertificateStore.systemTrustRoots.appending(contentsOf: fileRoots) : CertificateStore(fileRoots)
    }

    /// Evaluates `chain` (leaf first) for `host`.
    func evaluate(chain: [NIOSSLCertificate], host: String) async -> TrustEvaluation {
        let parsed: [Certificate]
        do {
            parsed = try chain.map { try Certificate(derEncoded: try $0.toDERBytes()) }
        } catch {
            return .untrusted(reason: "unparseable server certificate")
        }
        guard let leaf = parsed.first else { return .untrusted(reason: "server sent no certificate") }
        let intermediates = CertificateStore(parsed.dropFirst())
        var failures: [String] = []
        if let extraRoots {
            switch await validate(leaf, intermediates, roots: extraRoots, host: host) {
            case .validCertificate: return .trusted
            case .couldNotValidate(let found): failures = found.map { String(describing: $0.policyFailureReason) }
            }
        }
        switch await validate(leaf, intermediates, roots: roots, host: host) {
        case .validCertificate:
            return .trusted
        case .couldNotValidate(let found):
            // A revocation found under the extra roots is the story even if the full set fails otherwise.
            return .untrusted(reason: TrustFailureReason.describe(failures + found.map { String(describing: $0.policyFailureReason) }))
        }
    }

    private func validate(_ leaf: Certificate, _ intermediates: CertificateStore, roots: CertificateStore,
                          host: String) async -> CertificateValidationResult {
        let isIP = Self.isIPLiteral(host)
        let revocation = self.revocation
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
            if let revocation { revocation.policy() }
        }
        return await verifier.validate(leaf: leaf, intermediates: intermediates)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    private static func loadPEMCertificates(path: String) throws(SessionError) -> [Certificate] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SessionError.fileIO.with("cannot read CA certificate file '\(path)'")
        }
        var certificates: [Certificate] = []
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var rest = Substring(text)
        while let start = rest.firstRange(of: begin), let stop = rest[start.upperBound...].firstRange(of: end) {
            if let certificate = try? Certificate(pemEncoded: String(rest[start.lowerBound..<stop.upperBound])) {
                certificates.append(certificate)
            }
            rest = rest[stop.upperBound...]
        }
        guard !certificates.isEmpty else {
            throw SessionError.fileIO.with("no certificate found in '\(path)'")
        }
        return certificates
    }
}
