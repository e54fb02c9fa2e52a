#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOSSL
import SwiftASN1
import X509

/// A client certificate chain and its private key: the identity a client presents when a
/// server asks for a certificate (TLS 1.3 CertificateRequest, RFC 8446 §4.3.2). It is the
/// identity credential of Apple's URL Loading System (NSURLCredential's identity and
/// certificates), answered to a client-certificate challenge
/// (`NSURLAuthenticationMethodClientCertificate`).
///
/// Loading follows wget (`--certificate`, `--private-key`, `--certificate-type`,
/// `--private-key-type`) and curl (`--cert FILE[:PASSWORD]`, `--key`, `--pass`):
/// - certificates in PEM (the leaf first, then any intermediates) or DER (one certificate);
/// - the key in PEM (PKCS#8, PKCS#1 RSA, SEC1 EC; encrypted PKCS#8 or traditional
///   `Proc-Type: 4,ENCRYPTED` with a passphrase) or DER (unencrypted);
/// - without a key file the key is looked for in the certificate file (a combined PEM);
/// - the key must belong to the leaf certificate; a mismatch is refused before any connection.
///
/// Errors say which file and what is wrong: unreadable, no certificate, no key, passphrase
/// needed (``ClientIdentityError/Kind/passphraseRequired``: the command prompts on a terminal
/// and retries), wrong passphrase, key not matching.
public struct ClientIdentity: Sendable, Hashable {
    /// The certificate chain presented, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The private key of the leaf certificate.
    public let privateKey: NIOSSLPrivateKey

    /// The largest certificate or key file read.
    public static let maximumFileSize = 1 << 20

    /// An identity from loaded values; throws ``ClientIdentityError/Kind/keyMismatch`` when
    /// `privateKey` does not belong to the first certificate, or when the chain is empty.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws(ClientIdentityError) {
        guard let leaf = certificateChain.first else { throw ClientIdentityError(.noCertificate, "empty certificate chain") }
        guard Self.keyMatches(privateKey, leaf) else {
            throw ClientIdentityError(.keyMismatch, "the private key does not belong to the client certificate")
        }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Loads an identity from files. `privateKeyFile` nil means the key is in `certificateFile`
    /// (which must then be PEM). `passphrase` decrypts an encrypted PEM key and is ignored for
    /// an unencrypted one.
    public static func load(certificateFile: String, certificateFormat: TLSFileFormat = .pem,
                            privateKeyFile: String? = nil, privateKeyFormat: TLSFileFormat = .pem,
                            passphrase: String? = nil) throws(ClientIdentityError) -> ClientIdentity {
        let certificateBytes = try read(certificateFile)
        let chain = try certificates(certificateBytes, format: certificateFormat, path: certificateFile)
        let key: NIOSSLPrivateKey
        if let privateKeyFile {
            key = try privateKey(try read(privateKeyFile), format: privateKeyFormat, passphrase: passphrase, path: privateKeyFile)
        } else {
            guard certificateFormat == .pem else {
                throw ClientIdentityError(.noPrivateKey, "no private key file given and '\(certificateFile)' is DER")
            }
            key = try privateKey(certificateBytes, format: .pem, passphrase: passphrase, path: certificateFile)
        }
        do {
            return try ClientIdentity(certificateChain: chain, privateKey: key)
        } catch {
            throw ClientIdentityError(.keyMismatch, "the private key in '\(privateKeyFile ?? certificateFile)' does not belong to the certificate in '\(certificateFile)'")
        }
    }

    /// Whether the PEM key in `path` (or in `bytes`) is encrypted, so that the command knows to
    /// ask for a passphrase before calling ``load(certificateFile:certificateFormat:privateKeyFile:privateKeyFormat:passphrase:)``.
    public static func isEncryptedPEMKey(bytes: [UInt8]) -> Bool {
        keyBlock(in: bytes).map(isEncrypted) ?? false
    }

    /// Sets `configuration`'s certificate chain and private key to this identity (for a
    /// connection that presents it unconditionally).
    public func configure(_ configuration: inout TLSConfiguration) {
        configuration.certificateChain = certificateChain.map { .certificate($0) }
        configuration.privateKey = .privateKey(privateKey)
    }

    /// The same identity as an override for NIOSSL's context callback (the client-certificate
    /// challenge answered when the server asks).
    public var configurationOverride: NIOSSLContextConfigurationOverride {
        var override = NIOSSLContextConfigurationOverride()
        override.certificateChain = certificateChain.map { .certificate($0) }
        override.privateKey = .privateKey(privateKey)
        return override
    }

    /// The leaf certificate, parsed (for display and for the challenge's delegate).
    public var leafCertificate: Certificate? {
        certificateChain.first.flatMap { try? Certificate(derEncoded: $0.toDERBytes()) }
    }

    /// Splits curl's `--cert FILE[:PASSWORD]`: the first colon not escaped by a backslash
    /// separates the file from the passphrase; `\:` stands for ':' and `\\` for '\' in the file
    /// name, any other backslash is kept. A value starting with `pkcs11:` or holding neither ':'
    /// nor '\' is a file name as is. An empty passphrase after the colon counts as none.
    public static func splitCurlCertificateArgument(_ argument: String) -> (file: String, passphrase: String?) {
        if argument.lowercased().hasPrefix("pkcs11:") || !argument.contains(where: { $0 == ":" || $0 == "\\" }) {
            return (argument, nil)
        }
        var file = ""
        var characters = argument[...]
        while let character = characters.popFirst() {
            switch character {
            case "\\":
                switch characters.first {
                case nil:
                    file.append("\\")
                case "\\", ":":
                    file.append(characters.removeFirst())
                default:
                    file.append("\\")
                    file.append(characters.removeFirst())
                }
            case ":":
                return (file, characters.isEmpty ? nil : String(characters))
            default:
                file.append(character)
            }
        }
        return (file, nil)
    }

    // MARK: - Loading

    private static func read(_ path: String) throws(ClientIdentityError) -> [UInt8] {
        do {
            return try TLSInputFile.read(path, limit: maximumFileSize)
        } catch {
            throw ClientIdentityError(.unreadableFile, "cannot read '\(path)': \(error.reason)")
        }
    }

    private static func certificates(_ bytes: [UInt8], format: TLSFileFormat, path: String) throws(ClientIdentityError) -> [NIOSSLCertificate] {
        var ders: [[UInt8]] = []
        switch format {
        case .pem:
            ders = TLSInputFile.pemBlocks(bytes).filter { $0.label == "CERTIFICATE" }.compactMap(\.der)
        case .der:
            ders = [bytes]
        }
        let chain = ders.compactMap { try? NIOSSLCertificate(bytes: $0, format: .der) }
        guard !chain.isEmpty, chain.count == ders.count else {
            throw ClientIdentityError(.noCertificate, ders.isEmpty ? "no certificate in '\(path)'" : "unreadable certificate in '\(path)' (\(format == .pem ? "PEM" : "DER") expected)")
        }
        return chain
    }

    private static let keyLabels: Set<String> = ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]

    private static func keyBlock(in bytes: [UInt8]) -> TLSInputFile.PEMBlock? {
        TLSInputFile.pemBlocks(bytes).first { keyLabels.contains($0.label) }
    }

    private static func isEncrypted(_ block: TLSInputFile.PEMBlock) -> Bool {
        block.label == "ENCRYPTED PRIVATE KEY" || block.hasEncryptionHeader
    }

    private static func privateKey(_ bytes: [UInt8], format: TLSFileFormat, passphrase: String?, path: String) throws(ClientIdentityError) -> NIOSSLPrivateKey {
        switch format {
        case .der:
            if let key = try? NIOSSLPrivateKey(bytes: bytes, format: .der) { return key }
            if isEncryptedPKCS8(bytes) {
                throw ClientIdentityError(.invalidPrivateKey, "'\(path)' is an encrypted DER key, which is not supported: convert it to PEM")
            }
            throw ClientIdentityError(.invalidPrivateKey, "no DER private key in '\(path)'")
        case .pem:
            guard let block = keyBlock(in: bytes) else {
                throw ClientIdentityError(.noPrivateKey, "no private key in '\(path)'")
            }
            let encrypted = isEncrypted(block)
            if encrypted && passphrase == nil {
                throw ClientIdentityError(.passphraseRequired, "the private key in '\(path)' is encrypted: a passphrase is needed")
            }
            // Always give NIOSSL a callback, so BoringSSL never falls back to a default prompt.
            let secret = Array((passphrase ?? "").utf8)
            let callback: NIOSSLPassphraseCallback<[UInt8]> = { setter in setter(secret) }
            do {
                return try NIOSSLPrivateKey(bytes: Array(block.text.utf8), format: .pem, passphraseCallback: callback)
            } catch {
                if encrypted { throw ClientIdentityError(.wrongPassphrase, "wrong passphrase for the private key in '\(path)'") }
                throw ClientIdentityError(.invalidPrivateKey, "unreadable private key in '\(path)'")
            }
        }
    }

    /// EncryptedPrivateKeyInfo starts with SEQUENCE { SEQUENCE {...}; PrivateKeyInfo with INTEGER.
    private static func isEncryptedPKCS8(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 4, bytes[0] == 0x30 else { return false }
        var index = 1
        if bytes[index] & 0x80 != 0 { index += Int(bytes[index] & 0x7F) }
        index += 1
        return index < bytes.count && bytes[index] == 0x30
    }

    /// Whether `key` is the private key of `certificate`: compared with swift-certificates when
    /// it can represent the key, else by letting BoringSSL pair them in a throwaway context.
    static func keyMatches(_ key: NIOSSLPrivateKey, _ certificate: NIOSSLCertificate) -> Bool {
        if let der = try? key.derBytes, let parsed = Self.parsePrivateKey(der),
           let leaf = try? Certificate(derEncoded: certificate.toDERBytes()) {
            return parsed.publicKey == leaf.publicKey
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([])
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        return (try? NIOSSLContext(configuration: configuration)) != nil
    }

    /// BoringSSL's `i2d_PrivateKey` writes PKCS#1 for RSA, SEC1 for EC and PKCS#8 otherwise.
    private static func parsePrivateKey(_ der: [UInt8]) -> Certificate.PrivateKey? {
        for label in ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"] {
            if let key = try? Certificate.PrivateKey(pemDocument: PEMDocument(type: label, derBytes: der)) { return key }
        }
        return nil
    }
}

/// The encoding of a certificate or key file (`--certificate-type`, `--private-key-type`).
public enum TLSFileFormat: String, Sendable, Hashable {
    /// Base64 text between `-----BEGIN …-----` lines.
    case pem
    /// Binary ASN.1 DER.
    case der

    /// Parses "PEM" or "DER" (any case; curl's "ASN1" too). P12 and ENG are not supported.
    public init(parsing value: String) throws(ClientIdentityError) {
        switch value.lowercased() {
        case "pem": self = .pem
        case "der", "asn1": self = .der
        default: throw ClientIdentityError(.unsupportedFormat, "unsupported file type '\(value.prefix(20))' (PEM or DER)")
        }
    }
}

/// A client identity could not be loaded.
public struct ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// A file cannot be read (missing, a directory, too large, no permission).
        case unreadableFile
        /// No (readable) certificate in the certificate file.
        case noCertificate
        /// No private key where one was expected.
        case noPrivateKey
        /// The key file holds something that is not a usable key.
        case invalidPrivateKey
        /// The key is encrypted and no passphrase was given: prompt and retry.
        case passphraseRequired
        /// The passphrase does not decrypt the key.
        case wrongPassphrase
        /// The key does not belong to the leaf certificate.
        case keyMismatch
        /// `--certificate-type` / `--private-key-type` other than PEM or DER.
        case unsupportedFormat
    }

    /// The kind of failure.
    public let kind: Kind
    /// One line naming the file.
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// ``message``.
    public var description: String { message }
}
