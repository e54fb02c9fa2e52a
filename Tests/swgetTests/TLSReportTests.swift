import Foundation
import Testing
import SwgetKit
@testable import SwgetCLI

/// The `-S` TLS lines and the TLS option group, without a server.
@Suite("TLS lines and options")
struct TLSReportTests {
    static func info(host: String = "example.org", cipher: String? = "TLS_AES_128_GCM_SHA256", subject: String = "CN=example.org",
                     resumed: Bool = false, before: Double = 0, after: Double = 86_400) -> TLSConnectionInfo {
        TLSConnectionInfo(host: host, port: 443, protocolVersion: "TLSv1.3", cipherSuite: cipher, sessionResumed: resumed,
                          serverCertificate: CertificateSummary(subject: subject, issuer: "CN=CA", notValidBefore: Date(timeIntervalSince1970: before),
                                                                notValidAfter: Date(timeIntervalSince1970: after)))
    }

    @Test func linesForANewConnection() {
        #expect(Reporter.tlsText(Self.info()) == """
              TLS: TLSv1.3, TLS_AES_128_GCM_SHA256, new session (example.org:443)
              Certificate subject: CN=example.org
              Certificate issuer: CN=CA
              Certificate valid: 1970-01-01 00:00:00 UTC to 1970-01-02 00:00:00 UTC
            """)
    }

    struct HostileCase: CustomTestStringConvertible, Sendable {
        let name: String
        let info: TLSConnectionInfo
        let expectedFirstLine: String
        let expectedSubject: String
        var testDescription: String { name }
    }

    static let hostile: [HostileCase] = [
        HostileCase(name: "escape sequences in the subject", info: info(subject: "CN=\u{1B}]0;owned\u{07}\u{1B}[2J"),
                    expectedFirstLine: "  TLS: TLSv1.3, TLS_AES_128_GCM_SHA256, new session (example.org:443)",
                    expectedSubject: "  Certificate subject: CN=\\x1B]0;owned\\x07\\x1B[2J"),
        HostileCase(name: "bidi override and a newline", info: info(subject: "CN=a\u{202E}b\nCertificate issuer: fake"),
                    expectedFirstLine: "  TLS: TLSv1.3, TLS_AES_128_GCM_SHA256, new session (example.org:443)",
                    expectedSubject: "  Certificate subject: CN=a\\u{202E}b\\x0ACertificate issuer: fake"),
        HostileCase(name: "IPv6 host, unknown cipher, resumed", info: info(host: "::1", cipher: nil, resumed: true),
                    expectedFirstLine: "  TLS: TLSv1.3, unknown cipher, resumed session ([::1]:443)",
                    expectedSubject: "  Certificate subject: CN=example.org"),
    ]

    @Test(arguments: hostile)
    func serverTextsAreSanitised(_ c: HostileCase) {
        let lines = Reporter.tlsText(c.info).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == c.expectedFirstLine)
        #expect(lines.dropFirst().first == c.expectedSubject)
    }

    @Test(arguments: [-1e300, -62_135_596_800.0, 253_402_300_799.0, 1e300, .infinity, -.infinity, .nan])
    func extremeDatesDoNotTrap(_ seconds: Double) {
        let text = Reporter.utc(seconds)
        #expect(text == "?" || text.hasSuffix(" UTC"))
    }

    @Test func optionsResolveToOneIdentityAndPolicy() throws {
        let curl = try TLSOptions.parse(["--cert", "dir\\:x/c.pem:pass:word", "--key", "k.pem", "--tlsv1.3"])
        #expect(curl.clientCertificate?.file == "dir:x/c.pem")
        #expect(curl.clientCertificate?.passphrase == "pass:word")
        #expect(try curl.versionPolicy().minimum == .tls1_3)
        let wget = try TLSOptions.parse(["--certificate", "c.pem", "--pass", "p", "--secure-protocol", "PFS", "--tls-max", "1.2"])
        #expect(wget.clientCertificate?.file == "c.pem")
        #expect(wget.clientCertificate?.passphrase == "p")
        #expect(try wget.versionPolicy().maximum == .tls1_2)
        #expect(try wget.versionPolicy().cipherList == TLSVersionPolicy.forwardSecrecyCiphers)
        // --pass wins over the passphrase inside --cert.
        let both = try TLSOptions.parse(["--cert", "c.pem:inline", "--pass", "given"])
        #expect(both.clientCertificate?.passphrase == "given")
        #expect(try TLSOptions.parse([]).clientCertificate == nil)
    }

    @Test func loadingAppliesEverythingAndAsksOnlyWhenNeeded() throws {
        var configuration = SessionConfiguration.ephemeral
        let options = try TLSOptions.parse(["-k", "--pinnedpubkey", "sha256//" + String(repeating: "A", count: 43) + "=",
                                            "--cacert", "/x/ca.pem", "--tls-max", "1.2"])
        var asked = 0
        let warnings = try options.load(into: &configuration) { _ in
            asked += 1
            return nil
        }
        #expect(warnings.isEmpty)
        #expect(asked == 0)
        #expect(configuration.tls.verification == .none)
        #expect(configuration.tls.pinnedPublicKey?.sha256Hashes == [[UInt8](repeating: 0, count: 32)])
        #expect(configuration.tls.additionalTrustRootFiles == ["/x/ca.pem"])
        #expect(configuration.tls.versionPolicy.maximum == .tls1_2)
        #expect(configuration.tls.clientIdentity == nil)
        #expect(configuration.tls.resumesSessions)
        var off = SessionConfiguration.ephemeral
        _ = try TLSOptions.parse(["--no-sessionid"]).load(into: &off)
        #expect(!off.tls.resumesSessions)
    }
}
