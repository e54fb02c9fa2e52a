import Foundation
import Testing
import X509
@testable import SwgetKit

@Suite("TLS: certificate revocation lists (--crl-file)")
struct CertificateRevocationTests {
    static func pki() throws -> TLSTestPKI { try TLSTestPKI.shared.get() }

    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pemEncoded: String(contentsOfFile: try pki().path(name + ".pem"), encoding: .utf8))
    }

    static func crl(_ name: String) throws -> CertificateRevocationList {
        let lists = try CertificateRevocationList.load(path: try pki().path(name))
        return try #require(lists.first)
    }

    @Test func readsOpenSSLsCRLInPEMAndDER() throws {
        let pem = try Self.crl("crl.pem"), der = try Self.crl("crl.der")
        #expect(pem == der)
        #expect(pem.issuer == (try Self.certificate("ca")).subject)
        #expect(pem.revoked.keys.sorted { $0.lexicographicallyPrecedes($1) } == [[0x10, 0x02]])
        #expect(pem.revoked[[0x10, 0x02]]?.reasonCode == 1)
        #expect(abs(pem.thisUpdate.timeIntervalSinceNow) < 86_400)
        let next = try #require(pem.nextUpdate)
        #expect(abs(next.timeIntervalSince(pem.thisUpdate) - 30 * 86_400) < 2)
        #expect(pem.isSigned(by: try Self.certificate("ca")))
        #expect(!pem.isSigned(by: try Self.certificate("impostor")))
        #expect(!(try Self.crl("impostor-crl.pem")).isSigned(by: try Self.certificate("ca")))
    }

    struct ChainCase: CustomTestStringConvertible, Sendable {
        let name: String
        let crls: [String]
        let leaf: String
        let coverage: RevocationChecker.Coverage
        /// Days after the CRL's thisUpdate.
        let day: Double
        /// "good", or the start of the failure reason.
        let expected: String
        var testDescription: String { name }
    }

    static let chains: [ChainCase] = [
        ChainCase(name: "good certificate", crls: ["crl.pem"], leaf: "good", coverage: .everyCertificate, day: 1, expected: "good"),
        ChainCase(name: "revoked certificate", crls: ["crl.pem"], leaf: "revoked", coverage: .everyCertificate, day: 1,
                  expected: "certificate revoked: serial 1002 of CN=revoked is listed by the CRL of CN=swget Test CA, reason keyCompromise"),
        ChainCase(name: "revoked, DER CRL", crls: ["crl.der"], leaf: "revoked", coverage: .issuersWithCRL, day: 1, expected: "certificate revoked"),
        ChainCase(name: "CRL out of date", crls: ["crl.pem"], leaf: "good", coverage: .everyCertificate, day: 31,
                  expected: "revocation check failed: the CRL of CN=swget Test CA is out of date"),
        ChainCase(name: "CRL not yet valid", crls: ["crl.pem"], leaf: "good", coverage: .everyCertificate, day: -1,
                  expected: "revocation check failed: the CRL of CN=swget Test CA is out of date or not yet valid"),
        ChainCase(name: "no CRL, every certificate", crls: [], leaf: "good", coverage: .everyCertificate, day: 1,
                  expected: "revocation check failed: no CRL signed by CN=swget Test CA"),
        ChainCase(name: "no CRL, issuers with a CRL", crls: [], leaf: "revoked", coverage: .issuersWithCRL, day: 1, expected: "good"),
        ChainCase(name: "forged CRL only", crls: ["impostor-crl.pem"], leaf: "good", coverage: .everyCertificate, day: 1,
                  expected: "revocation check failed: no CRL signed by"),
        ChainCase(name: "forged and real CRL", crls: ["impostor-crl.pem", "crl.pem"], leaf: "revoked", coverage: .everyCertificate,
                  day: 1, expected: "certificate revoked"),
        ChainCase(name: "partitioned CRL covers its distribution point", crls: ["idp_ext-crl.pem"], leaf: "dp-leaf",
                  coverage: .everyCertificate, day: 1, expected: "good"),
        ChainCase(name: "partitioned CRL does not cover others", crls: ["idp_ext-crl.pem"], leaf: "good", coverage: .everyCertificate,
                  day: 1, expected: "revocation check failed: no CRL"),
    ]

    @Test(arguments: chains)
    func check(_ c: ChainCase) throws {
        let pki = try Self.pki()
        let checker = try RevocationChecker(paths: c.crls.map(pki.path), coverage: c.coverage)
        let reference = try Self.crl("crl.pem").thisUpdate
        let status = checker.check(chain: [try Self.certificate(c.leaf), try Self.certificate("ca")],
                                   at: reference.addingTimeInterval(c.day * 86_400))
        if c.expected == "good" {
            #expect(status == .good)
        } else {
            #expect(status.failureReason?.hasPrefix(c.expected) == true, "\(status)")
        }
        // A lone trust anchor is never checked.
        #expect(checker.check(chain: [try Self.certificate("ca")], at: reference) == .good)
    }

    @Test func theVerifierPolicyFailsRevokedChains() async throws {
        let checker = try RevocationChecker(paths: [try Self.pki().path("crl.pem")])
        let ca = try Self.certificate("ca")
        for (leaf, trusted) in [("good", true), ("revoked", false)] {
            var verifier = Verifier(rootCertificates: CertificateStore([ca])) {
                RFC5280Policy()
                checker.policy()
            }
            let result = await verifier.validate(leaf: try Self.certificate(leaf), intermediates: CertificateStore())
            switch result {
            case .validCertificate(let chain):
                #expect(trusted)
                #expect(chain.count == 2)
            case .couldNotValidate(let failures):
                #expect(!trusted)
                #expect(failures.contains { $0.policyFailureReason.description.hasPrefix("certificate revoked") })
            }
        }
    }

    @Test(arguments: [
        ("crit_ext-crl.pem", "unsupported critical CRL extension 1.2.3.4"),
        ("ca.pem", "no 'BEGIN X509 CRL' block"),
        ("good.key", "no 'BEGIN X509 CRL' block"),
        ("client.der", "malformed CRL"),
        ("missing.crl", "cannot read CRL file"),
    ])
    func unusableFiles(_ file: String, _ message: String) throws {
        let path = try Self.pki().path(file)
        do {
            _ = try CertificateRevocationList.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.reason.contains(message), "\(error.reason)")
        }
    }

    @Test func corruptedCRLsAreRefusedNotCrashed() throws {
        let der = try Self.pki().bytes("crl.der")
        // Every truncation, and every single-byte corruption of the structure.
        for length in 0..<der.count {
            #expect(throws: CertificateRevocationError.self) { try CertificateRevocationList(derEncoded: Array(der[0..<length])) }
        }
        var state: UInt64 = 0xC41
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for _ in 0..<300 {
            var bytes = der
            bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next())
            if let list = try? CertificateRevocationList(derEncoded: bytes) {
                // A change inside the signed part breaks the signature.
                if list.revoked != (try Self.crl("crl.der")).revoked { #expect(!list.isSigned(by: try Self.certificate("ca"))) }
            }
        }
        #expect(throws: CertificateRevocationError.self) { try CertificateRevocationList(derEncoded: Array(repeating: 0x30, count: 10_000)) }
    }
}
