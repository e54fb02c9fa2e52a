#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOSSL
import X509

/// What a new https connection negotiated, delivered as ``TaskEvent/tlsEstablished(_:)`` once
/// its handshake completed (the TLS fields of NSURLSessionTaskTransactionMetrics:
/// `negotiatedTLSProtocolVersion`, `negotiatedTLSCipherSuite`, plus the server certificate that
/// `curl -v` shows). A reused keep-alive connection sends none.
///
/// Texts come from the server: show them through ``DisplayText/sanitize(_:)``. Their length is
/// bounded (``maximumTextLength`` characters each).
public struct TLSConnectionInfo: Sendable, Equatable {
    /// The host name (or IP literal) connected to.
    public let host: String
    /// The port connected to.
    public let port: Int
    /// "TLSv1.3", "TLSv1.2" (OpenSSL's spelling, as wget and curl print it).
    public let protocolVersion: String
    /// The cipher suite's IANA name ("TLS_AES_128_GCM_SHA256",
    /// "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"); nil when it cannot be read.
    public let cipherSuite: String?
    /// True when the handshake resumed an earlier session of this task's session (an
    /// abbreviated handshake, see ``TLSSettings/resumesSessions``).
    public let sessionResumed: Bool
    /// The server's leaf certificate, when one was presented (always, except with some
    /// resumptions that do not keep it).
    public let serverCertificate: CertificateSummary?

    /// The longest subject or issuer kept.
    public static let maximumTextLength = 1024

    /// Creates an info value; texts longer than ``maximumTextLength`` are cut.
    public init(host: String, port: Int, protocolVersion: String, cipherSuite: String?, sessionResumed: Bool,
                serverCertificate: CertificateSummary?) {
        self.host = host
        self.port = port
        self.protocolVersion = String(protocolVersion.prefix(Self.maximumTextLength))
        self.cipherSuite = cipherSuite.map { String($0.prefix(Self.maximumTextLength)) }
        self.sessionResumed = sessionResumed
        self.serverCertificate = serverCertificate
    }

    /// OpenSSL's name of a NIOSSL version.
    static func name(of version: TLSVersion?) -> String {
        switch version {
        case .tlsv13: "TLSv1.3"
        case .tlsv12: "TLSv1.2"
        case .tlsv11: "TLSv1.1"
        case .tlsv1: "TLSv1"
        case nil: "unknown"
        }
    }
}

/// The parts of a certificate a person checks: who it names, who signed it, when it is valid.
public struct CertificateSummary: Sendable, Equatable {
    /// The subject's distinguished name in RFC 4514 form ("CN=example.org,O=Example").
    public let subject: String
    /// The issuer's distinguished name, RFC 4514.
    public let issuer: String
    /// Not valid before this instant.
    public let notValidBefore: Date
    /// Not valid after this instant.
    public let notValidAfter: Date

    /// A summary; subject and issuer longer than ``TLSConnectionInfo/maximumTextLength`` are cut.
    public init(subject: String, issuer: String, notValidBefore: Date, notValidAfter: Date) {
        self.subject = String(subject.prefix(TLSConnectionInfo.maximumTextLength))
        self.issuer = String(issuer.prefix(TLSConnectionInfo.maximumTextLength))
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
    }

    /// The summary of a DER certificate, nil when it cannot be parsed.
    public init?(derEncoded der: [UInt8]) {
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        self.init(subject: String(describing: certificate.subject), issuer: String(describing: certificate.issuer),
                  notValidBefore: certificate.notValidBefore, notValidAfter: certificate.notValidAfter)
    }
}
