import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

@Suite("TLS: verification and the server-trust challenge")
struct TLSTests {
    static let pki = Result { try TestCertificates.make() }

    func configuration(trusting ca: TestCertificates?) throws -> SessionConfiguration {
        var configuration = SessionConfiguration.default
        if let ca {
            configuration.tls.additionalTrustRootFiles = [try ca.writeCA(to: makeTemporaryDirectory())]
        }
        return configuration
    }

    @Test func trustedChainWithExtraCA() async throws {
        let ca = try Self.pki.get()
        let delegate = RecordingDelegate()
        try await withServer(tls: try ca.serverIdentity(), { _ in .text("secret") }) { server in
            #expect(server.baseURL.hasPrefix("https://localhost:"))
            let session = Session(configuration: try configuration(trusting: ca), delegate: delegate)
            let (data, _) = try await session.data(for: request(server.baseURL + "/x"))
            #expect(Array(data) == Array("secret".utf8))
            // The IP address is verified against the certificate's IP SAN too.
            let (byIP, _) = try await session.data(for: request("https://127.0.0.1:\(server.port)/x"))
            #expect(Array(byIP) == Array("secret".utf8))
        }
        #expect(delegate.log.first == "challenge localhost trusted")
    }

    @Test func unknownCAIsRefused() async throws {
        let ca = try Self.pki.get()
        try await withServer(tls: try ca.serverIdentity(), { _ in .text("x") }) { server in
            let session = Session(configuration: try configuration(trusting: nil))
            do throws(SessionError) {
                _ = try await session.data(for: request(server.baseURL + "/x"))
                Issue.record("expected a TLS failure")
            } catch {
                #expect(error == SessionError.tlsUntrusted)
                #expect(error.category == .tls)
            }
        }
    }

    @Test func wrongHostNameIsRefused() async throws {
        let ca = try Self.pki.get()
        try await withServer(tls: try ca.serverIdentity(dnsNames: ["other.example"], ipAddresses: []), { _ in .text("x") }) { server in
            let session = Session(configuration: try configuration(trusting: ca))
            do throws(SessionError) {
                _ = try await session.data(for: request(server.baseURL + "/x"))
                Issue.record("expected a TLS failure")
            } catch {
                #expect(error == SessionError.tlsUntrusted)
                #expect(error.message.contains("host name"))
            }
        }
    }

    @Test func expiredCertificateIsRefused() async throws {
        let ca = try Self.pki.get()
        try await withServer(tls: try ca.serverIdentity(expired: true), { _ in .text("x") }) { server in
            await #expect(throws: SessionError.tlsUntrusted) {
                _ = try await Session(configuration: try configuration(trusting: ca)).data(for: request(server.baseURL + "/x"))
            }
        }
    }

    @Test func delegateCanAcceptASelfSignedServer() async throws {
        let delegate = RecordingDelegate(trust: .accept)
        try await withServer(tls: try TestCertificates.selfSigned(), { _ in .text("pinned") }) { server in
            let (data, _) = try await Session(delegate: delegate).data(for: request(server.baseURL + "/x"))
            #expect(Array(data) == Array("pinned".utf8))
        }
        #expect(delegate.log.first == "challenge localhost untrusted")
    }

    @Test func delegateCanRejectATrustedServer() async throws {
        let ca = try Self.pki.get()
        let delegate = RecordingDelegate(trust: .reject)
        try await withServer(tls: try ca.serverIdentity(), { _ in .text("x") }) { server in
            await #expect(throws: SessionError.tlsUntrusted) {
                _ = try await Session(configuration: try configuration(trusting: ca), delegate: delegate)
                    .data(for: request(server.baseURL + "/x"))
            }
        }
    }

    @Test func verificationCanBeTurnedOff() async throws {
        let delegate = RecordingDelegate(trust: .reject)
        try await withServer(tls: try TestCertificates.selfSigned(), { _ in .text("insecure") }) { server in
            var configuration = SessionConfiguration.default
            configuration.tls.verification = .none
            let (data, _) = try await Session(configuration: configuration, delegate: delegate).data(for: request(server.baseURL + "/x"))
            #expect(Array(data) == Array("insecure".utf8))
        }
        #expect(!delegate.log.contains { $0.hasPrefix("challenge") })
    }

    @Test func missingCAFileIsAFileError() async throws {
        var configuration = SessionConfiguration.default
        configuration.tls.additionalTrustRootFiles = ["/nonexistent/ca.pem"]
        do throws(SessionError) {
            _ = try await Session(configuration: configuration).data(for: request("https://127.0.0.1:9/x"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.category == .fileIO)
            #expect(error.message.contains("/nonexistent/ca.pem"))
        }
    }
}
