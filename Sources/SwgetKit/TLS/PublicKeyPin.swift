#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import SwiftASN1

/// A public-key pin (`--pinnedpubkey`, curl's and wget's option): the server's leaf certificate
/// must carry one of the pinned public keys, compared as the SHA-256 of its DER-encoded
/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7, the same hash as RFC 7469's `pin-sha256`).
///
/// The option's value is either
/// - `sha256//BASE64[;sha256//BASE64…]`: base64 (with padding) of 32-byte SHA-256 hashes; or
/// - a file holding one public key: PEM (`-----BEGIN PUBLIC KEY-----`) or DER, in
///   SubjectPublicKeyInfo form (what `openssl x509 -pubkey -noout` prints).
///
/// Only the leaf certificate is compared, as curl does. Pinning is checked on top of (not
/// instead of) chain verification, and also when verification is off (`--no-check-certificate`):
/// a mismatch always fails the connection (wget's semantics).
///
/// Bounds: at most ``maximumPins`` pins, an argument of at most ``maximumArgumentLength`` bytes,
/// a key file of at most ``maximumFileSize`` bytes.
public struct PublicKeyPin: Sendable, Hashable {
    /// The accepted SHA-256 hashes of SubjectPublicKeyInfo DER, 32 bytes each, without duplicates.
    public let sha256Hashes: [[UInt8]]

    /// The most pins one value may hold.
    public static let maximumPins = 256
    /// The longest `sha256//` list accepted.
    public static let maximumArgumentLength = 64 << 10
    /// The largest key file read.
    public static let maximumFileSize = 1 << 20

    /// Pins these hashes (each exactly 32 bytes; 1…``maximumPins`` of them).
    public init(sha256Hashes: [[UInt8]]) throws(PublicKeyPinError) {
        guard !sha256Hashes.isEmpty else { throw .init("no pin given") }
        guard sha256Hashes.count <= Self.maximumPins else { throw .init("more than \(Self.maximumPins) pins") }
        guard sha256Hashes.allSatisfy({ $0.count == 32 }) else { throw .init("a SHA-256 pin must be 32 bytes") }
        var unique: [[UInt8]] = []
        for hash in sha256Hashes where !unique.contains(hash) { unique.append(hash) }
        self.sha256Hashes = unique
    }

    /// Pins one key given as DER SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfo der: [UInt8]) throws(PublicKeyPinError) {
        guard Self.isSubjectPublicKeyInfo(der) else { throw .init("not a DER SubjectPublicKeyInfo public key") }
        try self.init(sha256Hashes: [Array(SHA256.hash(data: der))])
    }

    /// Parses an option value: a `sha256//` list when it starts with `sha256//`, else a key file.
    public init(argument: String) throws(PublicKeyPinError) {
        if argument.hasPrefix("sha256//") {
            try self.init(hashList: argument)
        } else {
            try self.init(contentsOfFile: argument)
        }
    }

    /// Parses `sha256//BASE64[;sha256//BASE64…]`.
    public init(hashList: String) throws(PublicKeyPinError) {
        guard hashList.utf8.count <= Self.maximumArgumentLength else { throw .init("pin list too long") }
        var hashes: [[UInt8]] = []
        for item in hashList.split(separator: ";", omittingEmptySubsequences: false) {
            guard item.hasPrefix("sha256//") else {
                throw .init("'\(Self.shown(item))' is not of the form sha256//BASE64")
            }
            guard let data = Data(base64Encoded: String(item.dropFirst(8))), data.count == 32 else {
                throw .init("'\(Self.shown(item))' is not the base64 of a 32-byte SHA-256 hash")
            }
            hashes.append(Array(data))
            guard hashes.count <= Self.maximumPins else { throw .init("more than \(Self.maximumPins) pins") }
        }
        try self.init(sha256Hashes: hashes)
    }

    /// Reads a public key file: PEM `PUBLIC KEY` or DER SubjectPublicKeyInfo.
    public init(contentsOfFile path: String) throws(PublicKeyPinError) {
        let bytes: [UInt8]
        do {
            bytes = try TLSInputFile.read(path, limit: Self.maximumFileSize)
        } catch {
            throw .init("cannot read public key file '\(path)': \(error.reason)")
        }
        if TLSInputFile.isPEM(bytes) {
            let blocks = TLSInputFile.pemBlocks(bytes)
            guard let block = blocks.first(where: { $0.label == "PUBLIC KEY" }) else {
                let labels = blocks.map(\.label)
                if labels.contains("CERTIFICATE") {
                    throw .init("'\(path)' holds a certificate, not a public key (extract it with: openssl x509 -pubkey -noout)")
                }
                if labels.contains("RSA PUBLIC KEY") {
                    throw .init("'\(path)' holds a PKCS#1 RSA key; a SubjectPublicKeyInfo ('BEGIN PUBLIC KEY') is needed")
                }
                throw .init("no 'BEGIN PUBLIC KEY' block in '\(path)'")
            }
            guard let der = block.der else { throw .init("corrupt base64 in '\(path)'") }
            do {
                try self.init(subjectPublicKeyInfo: der)
            } catch {
                throw .init("'\(path)': \(error.reason)")
            }
        } else {
            do {
                try self.init(subjectPublicKeyInfo: bytes)
            } catch {
                throw .init("'\(path)' is neither a PEM nor a DER public key")
            }
        }
    }

    /// Whether `subjectPublicKeyInfo` (DER) is pinned.
    public func matches(subjectPublicKeyInfo der: [UInt8]) -> Bool {
        sha256Hashes.contains(Array(SHA256.hash(data: der)))
    }

    /// Checks a server's chain (leaf first, DER certificates): nil when the leaf's key is
    /// pinned, else a one-line reason naming the server's key as a `sha256//` pin.
    public func mismatch(chain: [[UInt8]]) -> String? {
        guard let leaf = chain.first else { return "public key pinning: the server sent no certificate" }
        guard let spki = Self.subjectPublicKeyInfo(ofCertificate: leaf) else {
            return "public key pinning: cannot read the server certificate's public key"
        }
        if matches(subjectPublicKeyInfo: spki) { return nil }
        return "public key pinning: the server's key \(Self.pinString(subjectPublicKeyInfo: spki)) is not pinned"
    }

    /// The exact DER SubjectPublicKeyInfo bytes inside a DER certificate, or nil.
    public static func subjectPublicKeyInfo(ofCertificate der: [UInt8]) -> [UInt8]? {
        guard let certificate = try? DER.parse(der), case .constructed(let parts) = certificate.content,
              let tbs = parts.first(where: { _ in true }), case .constructed(let tbsParts) = tbs.content else { return nil }
        var fields = Array(tbsParts)
        if let first = fields.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            fields.removeFirst()
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count > 5, fields[5].identifier == .sequence else { return nil }
        return Array(fields[5].encodedBytes)
    }

    /// `sha256//BASE64` for a DER SubjectPublicKeyInfo (what to pass to `--pinnedpubkey`).
    public static func pinString(subjectPublicKeyInfo der: [UInt8]) -> String {
        "sha256//" + Data(SHA256.hash(data: der)).base64EncodedString()
    }

    /// SEQUENCE { SEQUENCE { OBJECT IDENTIFIER, ... }, BIT STRING } in DER, nothing after it.
    static func isSubjectPublicKeyInfo(_ der: [UInt8]) -> Bool {
        guard let node = try? DER.parse(der), node.identifier == .sequence, case .constructed(let parts) = node.content else { return false }
        let fields = Array(parts)
        guard fields.count == 2, fields[0].identifier == .sequence, fields[1].identifier == .bitString,
              case .constructed(let algorithm) = fields[0].content,
              algorithm.first(where: { _ in true })?.identifier == .objectIdentifier else { return false }
        return true
    }

    private static func shown(_ text: Substring) -> String {
        String(text.prefix(60).map { $0.isASCII && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? true) ? $0 : "?" })
    }
}

/// A pin value or key file could not be used.
public struct PublicKeyPinError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    /// `--pinnedpubkey: ` followed by ``reason``.
    public var description: String { "--pinnedpubkey: \(reason)" }
}
