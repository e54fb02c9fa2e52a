import Foundation
import NIOSSL
import Synchronization
import Testing
import X509
import SwgetKit
import SwgetTestSupport

/// The TLS controls through the Session API against real servers: `openssl s_server` limited
/// to one version (its status page says whether each handshake was new or resumed), and nginx
/// asking for client certificates.
@Suite("TLS controls: versions, revocation, pins, client certificates, resumption", .serialized)
struct TLSControlsTests {
    static let pki = Result { try OpenSSLPKI.make() }

    /// Records TLS events and answers the challenges as told.
    final class Delegate: SessionDelegate {
        let infos = Mutex<[TLSConnectionInfo]>([])
        let trustAsked = Mutex(0)
        let clientAsked = Mutex<[String]>([])
        let trustAnswer: TrustDisposition
        let clientAnswer: ClientCertificateDisposition

        init(trust: TrustDisposition = .performDefaultHandling, client: ClientCertificateDisposition = .performDefaultHandling) {
            trustAnswer = trust
            clientAnswer = client
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            if case .tlsEstablished(let info) = event { infos.withLock { $0.append(info) } }
        }

        func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition {
            trustAsked.withLock { $0 += 1 }
            return trustAnswer
        }

        func task(_ task: SessionTask, didReceive challenge: ClientCertificateChallenge) async -> ClientCertificateDisposition {
            clientAsked.withLock { $0.append("\(challenge.protectionSpace.host):\(challenge.port)") }
            return clientAnswer
        }
    }

    static func configuration(_ change: (inout TLSSettings) throws -> Void = { _ in }) throws -> SessionConfiguration {
        var configuration = SessionConfiguration.ephemeral
        configuration.tls.additionalTrustRootFiles = [try pki.get().path("ca.pem")]
        try change(&configuration.tls)
        return configuration
    }

    static func fetch(_ url: String, _ configuration: SessionConfiguration,
                      delegate: Delegate? = nil) async throws(SessionError) -> (String, Response) {
        let session = Session(configuration: configuration, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        guard let request = Request(string: url) else { throw SessionError.unsupportedURL }
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), response)
    }

    static func server(_ name: String = "server", version: OpenSSLServer.Version = .any) async throws -> OpenSSLServer {
        let pki = try pki.get()
        return try await OpenSSLServer.start(certificate: pki.path("\(name).pem"), key: pki.path("\(name).key"), version: version)
    }

    // MARK: versions

    struct VersionCase: CustomTestStringConvertible, Sendable {
        let name: String
        let server: OpenSSLServer.Version
        let minimums: [TLSVersionPolicy.Version]
        let maximum: String?
        /// nil: refused.
        let negotiated: String?
        var testDescription: String { name }
    }

    static let versions: [VersionCase] = [
        VersionCase(name: "default against TLS 1.2 only", server: .tls12, minimums: [], maximum: nil, negotiated: "TLSv1.2"),
        VersionCase(name: "default against TLS 1.3 only", server: .tls13, minimums: [], maximum: nil, negotiated: "TLSv1.3"),
        VersionCase(name: "--tlsv1.3 against TLS 1.2 only", server: .tls12, minimums: [.tls1_3], maximum: nil, negotiated: nil),
        VersionCase(name: "--tls-max 1.2 against TLS 1.3 only", server: .tls13, minimums: [], maximum: "1.2", negotiated: nil),
        VersionCase(name: "--tls-max 1.2 against both", server: .any, minimums: [], maximum: "1.2", negotiated: "TLSv1.2"),
    ]

    @Test(arguments: versions)
    func versionBounds(_ c: VersionCase) async throws {
        let server = try await Self.server(version: c.server)
        defer { server.stop() }
        let policy = try TLSVersionPolicy(minimums: c.minimums, maximum: c.maximum)
        let delegate = Delegate()
        let configuration = try Self.configuration { $0.versionPolicy = policy }
        do throws(SessionError) {
            let (page, _) = try await Self.fetch(server.url, configuration, delegate: delegate)
            #expect(c.negotiated != nil, "expected a refusal, got: \(page.prefix(200))")
            let info = delegate.infos.withLock { $0.first }
            #expect(info?.protocolVersion == c.negotiated)
            #expect(page.contains("New, \(c.negotiated ?? "")"))
            // IANA names (OpenSSL's page uses its own names for TLS 1.2 suites).
            #expect(info?.cipherSuite?.hasPrefix("TLS_") == true, "\(String(describing: info?.cipherSuite))")
            if c.negotiated == "TLSv1.3" { #expect(info?.cipherSuite.map { page.contains("Cipher is \($0)") } == true) }
            #expect(info?.serverCertificate?.subject == "CN=localhost")
            #expect(info?.serverCertificate?.issuer.contains("CN=swget TLS test CA") == true)
        } catch {
            #expect(c.negotiated == nil, "\(error)")
            #expect(error == SessionError.tlsHandshake)
            #expect(error.message == "TLS handshake failed: no TLS version in common with the server", "\(error.message)")
        }
    }

    // MARK: resumption

    @Test func laterConnectionsResumeTheSession() async throws {
        for version in [OpenSSLServer.Version.tls12, .tls13] {
            let server = try await Self.server(version: version)
            defer { server.stop() }
            let delegate = Delegate()
            let session = Session(configuration: try Self.configuration(), delegate: delegate)
            var pages: [String] = []
            // s_server -www closes after each page: every request is a new connection.
            for _ in 0..<3 {
                let (data, _) = try await session.data(for: try #require(Request(string: server.url)))
                pages.append(String(decoding: data, as: UTF8.self))
            }
            session.finishTasksAndInvalidate()
            #expect(pages.map { $0.contains("\nNew, ") } == [true, false, false], "\(version)")
            #expect(pages.map { $0.contains("\nReused, ") } == [false, true, true], "\(version)")
            #expect(delegate.infos.withLock { $0.map(\.sessionResumed) } == [false, true, true])
            // The server trust challenge comes with full handshakes only.
            #expect(delegate.trustAsked.withLock { $0 } == 1)
        }
    }

    @Test func resumptionCanBeTurnedOff() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let configuration = try Self.configuration { $0.resumesSessions = false }
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        for _ in 0..<2 {
            let (data, _) = try await session.data(for: try #require(Request(string: server.url)))
            #expect(String(decoding: data, as: UTF8.self).contains("\nNew, "))
        }
    }

    // MARK: revocation

    @Test func aRevokedCertificateIsRefused() async throws {
        let pki = try Self.pki.get()
        let crl = try CertificateRevocationList.load(path: pki.path("crl.pem"))
        let revoked = try await Self.server("revoked")
        defer { revoked.stop() }
        let checking = try Self.configuration { $0.revocationLists = crl }
        do throws(SessionError) {
            _ = try await Self.fetch(revoked.url, checking)
            Issue.record("a revoked certificate was accepted")
        } catch {
            #expect(error == SessionError.tlsUntrusted)
            #expect(error.category == .tls)
            #expect(error.message.hasPrefix("certificate not trusted: certificate revoked: serial 2002"), "\(error.message)")
        }
        // Without the CRL, or without verification, the same server is fine.
        _ = try await Self.fetch(revoked.url, try Self.configuration())
        _ = try await Self.fetch(revoked.url, try Self.configuration { $0.revocationLists = crl; $0.verification = .none })
    }

    @Test func aGoodCertificatePassesTheCRL() async throws {
        let pki = try Self.pki.get()
        let server = try await Self.server()
        defer { server.stop() }
        for file in ["crl.pem", "crl.der"] {
            let crl = try CertificateRevocationList.load(path: pki.path(file))
            let (page, _) = try await Self.fetch(server.url, try Self.configuration { $0.revocationLists = crl })
            #expect(page.contains("New, "))
        }
    }

    // MARK: pins

    @Test func aPinMismatchBeatsTheDelegateAndTheSwitchOff() async throws {
        let pki = try Self.pki.get()
        let server = try await Self.server()
        defer { server.stop() }
        let right = try PublicKeyPin(argument: try pki.serverPin())
        #expect(right == (try PublicKeyPin(argument: pki.path("server.pub.pem"))), "the hash and the key file name one key")
        let other = try PublicKeyPin(sha256Hashes: [[UInt8](repeating: 7, count: 32)])
        // Matches: verified, unverified, or accepted by the delegate.
        _ = try await Self.fetch(server.url, try Self.configuration { $0.pinnedPublicKey = right })
        _ = try await Self.fetch(server.url, try Self.configuration { $0.pinnedPublicKey = right; $0.verification = .none })
        // Mismatches: always refused, and the delegate is not asked.
        for verification in [TLSSettings.Verification.full, .none] {
            let delegate = Delegate(trust: .accept)
            let pinned = try Self.configuration { $0.pinnedPublicKey = other; $0.verification = verification }
            let expected = try pki.serverPin()
            do throws(SessionError) {
                _ = try await Self.fetch(server.url, pinned, delegate: delegate)
                Issue.record("a pin mismatch was accepted (\(verification))")
            } catch {
                #expect(error == SessionError.tlsUntrusted)
                #expect(error.message.contains("public key pinning: the server's key \(expected) is not pinned"), "\(error.message)")
            }
            #expect(delegate.trustAsked.withLock { $0 } == 0)
        }
    }

    // MARK: CA directories

    @Test func aCADirectoryIsTrusted() async throws {
        let pki = try Self.pki.get()
        let server = try await Self.server()
        defer { server.stop() }
        let directory = try CADirectory.load(path: pki.path("cadir"))
        var configuration = SessionConfiguration.ephemeral
        configuration.tls.useSystemTrustRoots = false
        configuration.tls.additionalTrustRoots = directory.certificates
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        _ = try await session.data(for: try #require(Request(string: server.url)))
        var without = SessionConfiguration.ephemeral
        without.tls.useSystemTrustRoots = false
        await #expect(throws: SessionError.tlsUntrusted) { _ = try await Self.fetch(server.url, without) }
    }

    // MARK: client certificates

    static func nginx(_ verification: (OpenSSLPKI) -> NginxTLS.ClientVerification) async throws -> NginxTLS {
        let pki = try pki.get()
        let root = try makeTemporaryDirectory(prefix: "swget-tls-root")
        return try await NginxTLS.start(root: root, certificate: pki.path("server.pem"), key: pki.path("server.key"),
                                  clientVerification: verification(pki), keepaliveRequests: 1)
    }

    static func identity() throws -> ClientIdentity {
        let pki = try pki.get()
        return try ClientIdentity.load(certificateFile: pki.path("client.pem"), privateKeyFile: pki.path("client-encrypted.key"),
                                       passphrase: OpenSSLPKI.passphrase)
    }

    @Test func theConfiguredIdentityIsPresented() async throws {
        let nginx = try await Self.nginx { .required(caFile: $0.path("ca.pem")) }
        defer { nginx.stop() }
        let identity = try Self.identity()
        let (text, response) = try await Self.fetch(nginx.httpsURL + "/whoami", try Self.configuration { $0.clientIdentity = identity })
        #expect(response.statusCode == 200)
        #expect(text.contains("CN=swget client"), "\(text)")
        // Without an identity, nginx answers 400 (it does not end the handshake).
        let (_, refused) = try await Self.fetch(nginx.httpsURL + "/whoami", try Self.configuration())
        #expect(refused.statusCode == 400)
    }

    @Test func theDelegateChoosesTheIdentityOncePerHostAndPort() async throws {
        let nginx = try await Self.nginx { .optional(caFile: $0.path("ca.pem")) }
        defer { nginx.stop() }
        let delegate = Delegate(client: .useIdentity(try Self.identity()))
        var configuration = try Self.configuration()
        configuration.tls.resumesSessions = false  // every connection asks the server's question again
        let session = Session(configuration: configuration, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        for _ in 0..<3 {  // keepalive_requests 1: three connections
            let (data, _) = try await session.data(for: try #require(Request(string: nginx.httpsURL + "/whoami")))
            #expect(String(decoding: data, as: UTF8.self).contains("CN=swget client"))
        }
        #expect(delegate.clientAsked.withLock { $0 } == ["localhost:\(nginx.httpsPort)"])
        #expect(delegate.infos.withLock { $0.count } == 3, "three connections, each with its handshake")
    }

    @Test func theDelegateCanDeclineOrCancel() async throws {
        let nginx = try await Self.nginx { .optional(caFile: $0.path("ca.pem")) }
        defer { nginx.stop() }
        let identity = try Self.identity()
        let declining = Delegate(client: .continueWithoutIdentity)
        let (text, response) = try await Self.fetch(nginx.httpsURL + "/whoami", try Self.configuration { $0.clientIdentity = identity },
                                                    delegate: declining)
        #expect(response.statusCode == 200)
        #expect(text == "\n", "no certificate was sent")
        let cancelling = Delegate(client: .cancel)
        let configured = try Self.configuration { $0.clientIdentity = identity }
        do throws(SessionError) {
            _ = try await Self.fetch(nginx.httpsURL + "/whoami", configured, delegate: cancelling)
            Issue.record("a cancelled challenge went on")
        } catch {
            #expect(error.category == .tls, "\(error)")
        }
    }
}
