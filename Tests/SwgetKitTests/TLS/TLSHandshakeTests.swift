import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing
@testable import SwgetKit

/// Client identities and version policies in real (in-memory) TLS handshakes between two
/// `EmbeddedChannel`s: what the session's TLS setup will rely on.
@Suite("TLS: handshakes with client identities and version bounds")
struct TLSHandshakeTests {
    static func pki() throws -> TLSTestPKI { try TLSTestPKI.shared.get() }

    /// A server presenting good.pem; `requireClientCertificate` makes it ask for (and verify)
    /// a client certificate issued by the test CA.
    static func serverConfiguration(requireClientCertificate: Bool, minimum: TLSVersion = .tlsv12,
                                    maximum: TLSVersion? = nil) throws -> TLSConfiguration {
        let pki = try pki()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(pki.path("good.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: pki.path("good.key"), format: .pem)))
        configuration.minimumTLSVersion = minimum
        configuration.maximumTLSVersion = maximum
        if requireClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(pki.path("ca.pem")))
        }
        return configuration
    }

    static func clientConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        configuration.trustRoots = .certificates([])
        return configuration
    }

    struct Outcome {
        let error: (any Error)?
        let clientCertificateSeenByServer: NIOSSLCertificate?
        let version: TLSVersion?
    }

    /// Runs a handshake in memory, shuttling bytes until both sides are quiet.
    static func handshake(client: TLSConfiguration, server: TLSConfiguration) throws -> Outcome {
        let serverChannel = EmbeddedChannel(), clientChannel = EmbeddedChannel()
        let serverHandler = NIOSSLServerHandler(context: try NIOSSLContext(configuration: server))
        let clientHandler = try NIOSSLClientHandler(context: try NIOSSLContext(configuration: client), serverHostname: "localhost")
        try serverChannel.pipeline.syncOperations.addHandler(serverHandler)
        try clientChannel.pipeline.syncOperations.addHandler(clientHandler)
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        var failure: (any Error)?
        /// Moves bytes both ways until both sides are quiet (bounded).
        func shuttle() throws {
            for _ in 0..<50 {
                clientChannel.embeddedEventLoop.run()
                serverChannel.embeddedEventLoop.run()
                var moved = false
                while let bytes = try clientChannel.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    try serverChannel.writeInbound(bytes)
                }
                while let bytes = try serverChannel.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    try clientChannel.writeInbound(bytes)
                }
                if !moved { return }
            }
        }
        do {
            try serverChannel.connect(to: address).wait()
            try clientChannel.connect(to: address).wait()
            try shuttle()
        } catch {
            failure = error
        }
        let outcome = Outcome(error: failure, clientCertificateSeenByServer: serverHandler.peerCertificate, version: clientHandler.tlsVersion)
        // Close without waiting (a TLS close waits for the peer's close_notify), then let the
        // shutdown timers fire on the embedded loops' virtual clocks.
        clientChannel.close(promise: nil)
        serverChannel.close(promise: nil)
        try? shuttle()
        clientChannel.embeddedEventLoop.advanceTime(by: .seconds(60))
        serverChannel.embeddedEventLoop.advanceTime(by: .seconds(60))
        return outcome
    }

    static func identity() throws -> ClientIdentity {
        let pki = try pki()
        return try ClientIdentity.load(certificateFile: pki.path("client.pem"), privateKeyFile: pki.path("client-encrypted.key"),
                                       passphrase: TLSTestPKI.passphrase)
    }

    @Test func theContextCallbackAnswersTheClientCertificateChallenge() throws {
        let identity = try Self.identity()
        let asked = NIOLockedValueBox<[String?]>([])
        var client = Self.clientConfiguration()
        client.sslContextCallback = { values, promise in
            asked.withLockedValue { $0.append(values.serverHostname) }
            promise.succeed(identity.configurationOverride)
        }
        let outcome = try Self.handshake(client: client, server: try Self.serverConfiguration(requireClientCertificate: true))
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(asked.withLockedValue { $0 } == ["localhost"])
        #expect(outcome.clientCertificateSeenByServer == identity.certificateChain.first)
    }

    @Test func theCallbackIsNotCalledWhenTheServerDoesNotAsk() throws {
        let asked = NIOLockedValueBox(0)
        var client = Self.clientConfiguration()
        client.sslContextCallback = { _, promise in
            asked.withLockedValue { $0 += 1 }
            promise.succeed(.noChanges)
        }
        let outcome = try Self.handshake(client: client, server: try Self.serverConfiguration(requireClientCertificate: false))
        #expect(outcome.error == nil)
        #expect(asked.withLockedValue { $0 } == 0)
        #expect(outcome.clientCertificateSeenByServer == nil)
    }

    @Test func decliningTheChallengeFailsAgainstARequiringServer() throws {
        var client = Self.clientConfiguration()
        client.sslContextCallback = { _, promise in promise.succeed(.noChanges) }
        let outcome = try Self.handshake(client: client, server: try Self.serverConfiguration(requireClientCertificate: true))
        #expect(outcome.error != nil)
    }

    @Test func aStaticIdentityIsPresented() throws {
        let identity = try Self.identity()
        var client = Self.clientConfiguration()
        identity.configure(&client)
        let outcome = try Self.handshake(client: client, server: try Self.serverConfiguration(requireClientCertificate: true))
        #expect(outcome.error == nil)
        #expect(outcome.clientCertificateSeenByServer == identity.certificateChain.first)
    }

    struct VersionCase: CustomTestStringConvertible, Sendable {
        let name: String
        let policy: TLSVersionPolicy
        let serverMinimum: TLSVersion
        let serverMaximum: TLSVersion?
        /// nil: the handshake must fail.
        let negotiated: TLSVersion?
        var testDescription: String { name }
    }

    static let versionCases: [VersionCase] = {
        let tls13 = (try? TLSVersionPolicy(minimums: [.tls1_3])) ?? TLSVersionPolicy()
        let max12 = (try? TLSVersionPolicy(maximum: "1.2")) ?? TLSVersionPolicy()
        let pfs = (try? TLSVersionPolicy(secureProtocol: .pfs)) ?? TLSVersionPolicy()
        let rsaOnly = (try? TLSVersionPolicy(maximum: "1.2", ciphers: "AES128-GCM-SHA256")) ?? TLSVersionPolicy()
        return [
            VersionCase(name: "default against a TLS 1.2-only server", policy: TLSVersionPolicy(), serverMinimum: .tlsv12,
                        serverMaximum: .tlsv12, negotiated: .tlsv12),
            VersionCase(name: "default against a TLS 1.3 server", policy: TLSVersionPolicy(), serverMinimum: .tlsv12,
                        serverMaximum: nil, negotiated: .tlsv13),
            VersionCase(name: "--tlsv1.3 against a TLS 1.2-only server", policy: tls13, serverMinimum: .tlsv12, serverMaximum: .tlsv12,
                        negotiated: nil),
            VersionCase(name: "--tls-max 1.2 against a TLS 1.3-only server", policy: max12, serverMinimum: .tlsv13,
                        serverMaximum: nil, negotiated: nil),
            VersionCase(name: "--tls-max 1.2 against a TLS 1.3 server", policy: max12, serverMinimum: .tlsv12, serverMaximum: nil,
                        negotiated: .tlsv12),
            VersionCase(name: "PFS on TLS 1.2 with an ECDSA server", policy: pfs, serverMinimum: .tlsv12, serverMaximum: .tlsv12,
                        negotiated: .tlsv12),
            // The server's key is ECDSA: an RSA-key-exchange-only list has nothing in common.
            VersionCase(name: "RSA key exchange only against an ECDSA server", policy: rsaOnly, serverMinimum: .tlsv12,
                        serverMaximum: .tlsv12, negotiated: nil),
        ]
    }()

    @Test(arguments: versionCases)
    func versions(_ c: VersionCase) throws {
        var client = Self.clientConfiguration()
        c.policy.configure(&client)
        let server = try Self.serverConfiguration(requireClientCertificate: false, minimum: c.serverMinimum, maximum: c.serverMaximum)
        let outcome = try Self.handshake(client: client, server: server)
        if let negotiated = c.negotiated {
            #expect(outcome.error == nil, "\(String(describing: outcome.error))")
            #expect(outcome.version == negotiated)
        } else {
            #expect(outcome.error != nil)
        }
    }
}
