import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway PKI made at test time: one CA and leaf certificates signed by it (P-256 keys).
///
/// Nothing touches the disk unless a `write...` method is called. Every `make()` gives a fresh CA,
/// so tests never share trust by accident.
public struct TestCertificates: Sendable {
    /// The CA certificate, PEM-encoded (give it to a client as its only trust anchor).
    public let caPEM: String

    private let caCertificate: Certificate
    private let caKey: Certificate.PrivateKey

    private init(caCertificate: Certificate, caKey: Certificate.PrivateKey) throws {
        self.caCertificate = caCertificate
        self.caKey = caKey
        self.caPEM = try caCertificate.serializeAsPEM().pemString
    }

    /// A fresh CA, valid from an hour ago for a day.
    public static func make() throws -> TestCertificates {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName {
            OrganizationName("swget tests")
            CommonName("swget test CA")
        }
        let now = Date()
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: key.publicKey)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: key
        )
        return try TestCertificates(caCertificate: certificate, caKey: key)
    }

    /// Writes `ca.pem` into `directory` and returns its path (for `--ca-certificate`).
    public func writeCA(to directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("ca.pem")
        try caPEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A leaf signed by this CA, with these subject alternative names.
    ///
    /// - Parameter expired: when true the certificate's validity ended yesterday.
    public func serverIdentity(
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1", "::1"],
        expired: Bool = false
    ) throws -> ServerIdentity {
        let now = Date()
        let validity =
            expired
            ? (now.addingTimeInterval(-2 * 86_400), now.addingTimeInterval(-86_400))
            : (now.addingTimeInterval(-3600), now.addingTimeInterval(86_400))
        return try Self.leaf(
            dnsNames: dnsNames,
            ipAddresses: ipAddresses,
            validity: validity,
            issuer: (caCertificate.subject, caKey, chain: [caCertificate])
        )
    }

    /// A self-signed leaf that no `TestCertificates` CA vouches for ("untrusted certificate" tests).
    public static func selfSigned(dnsNames: [String] = ["localhost"]) throws -> ServerIdentity {
        let now = Date()
        return try leaf(
            dnsNames: dnsNames,
            ipAddresses: ["127.0.0.1", "::1"],
            validity: (now.addingTimeInterval(-3600), now.addingTimeInterval(86_400)),
            issuer: nil
        )
    }

    /// Makes a leaf; `issuer == nil` means self-signed. `chain` holds the certificates after the leaf.
    private static func leaf(
        dnsNames: [String],
        ipAddresses: [String],
        validity: (notBefore: Date, notAfter: Date),
        issuer: (name: DistinguishedName, key: Certificate.PrivateKey, chain: [Certificate])?
    ) throws -> ServerIdentity {
        let swiftCryptoKey = P256.Signing.PrivateKey()
        let key = Certificate.PrivateKey(swiftCryptoKey)
        let subject = try DistinguishedName {
            OrganizationName("swget tests")
            CommonName(dnsNames.first ?? "swget test server")
        }
        var names = dnsNames.map { GeneralName.dnsName($0) }
        for address in ipAddresses {
            names.append(.ipAddress(ASN1OctetString(contentBytes: try ipAddressBytes(address)[...])))
        }
        let signer = issuer?.key ?? key
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectKeyIdentifier(hash: key.publicKey)
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: signer.publicKey).keyIdentifier)
            SubjectAlternativeNames(names)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: validity.notBefore,
            notValidAfter: validity.notAfter,
            issuer: issuer?.name ?? subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: signer
        )
        let chain = try ([certificate] + (issuer?.chain ?? [])).map { try $0.serializeAsPEM().pemString }
        return ServerIdentity(
            certificateChainPEM: chain.joined(separator: "\n") + "\n",
            privateKeyPEM: swiftCryptoKey.pemRepresentation + "\n"
        )
    }

    /// The 4 or 16 network-order bytes of a textual IPv4 or IPv6 address.
    private static func ipAddressBytes(_ address: String) throws -> [UInt8] {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        throw TestCertificatesError(message: "not an IP address: \(address)")
    }
}

extension TestCertificates {
    /// A server's certificate chain (leaf first, then the CA when there is one) and private key.
    public struct ServerIdentity: Sendable {
        public let certificateChainPEM: String
        /// PKCS#8 PEM ("BEGIN PRIVATE KEY").
        public let privateKeyPEM: String

        /// Writes `NAME.crt` (the chain) and `NAME.key` into `directory` (nginx's `ssl_certificate`
        /// and `ssl_certificate_key`).
        public func write(to directory: String, name: String) throws -> (certPath: String, keyPath: String) {
            let certPath = (directory as NSString).appendingPathComponent("\(name).crt")
            let keyPath = (directory as NSString).appendingPathComponent("\(name).key")
            try certificateChainPEM.write(toFile: certPath, atomically: true, encoding: .utf8)
            try privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
            return (certPath, keyPath)
        }
    }
}

/// A test PKI request that cannot be met (for example a malformed IP address).
public struct TestCertificatesError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}
