#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwiftASN1
import Synchronization
import X509

/// An X.509 certificate revocation list (RFC 5280 §5), as `--crl-file` (wget) / `--crlfile`
/// (curl) provide. swift-certificates has no CRL type, so the list is read with SwiftASN1:
/// ```
/// CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue BIT STRING }
/// TBSCertList ::= SEQUENCE { version INTEGER OPTIONAL (v2), signature AlgorithmIdentifier,
///     issuer Name, thisUpdate Time, nextUpdate Time OPTIONAL,
///     revokedCertificates SEQUENCE OF SEQUENCE { userCertificate INTEGER, revocationDate Time,
///         crlEntryExtensions Extensions OPTIONAL } OPTIONAL,
///     crlExtensions [0] EXPLICIT Extensions OPTIONAL }
/// ```
/// What is supported: complete CRLs signed directly by the certificate's issuer (RSA PKCS#1
/// v1.5, ECDSA, Ed25519), with the issuing distribution point extension (§5.2.5) for
/// user-only / CA-only and partitioned (by full-name distribution point) CRLs. Refused at load,
/// as §5.2 and §5.3 require for extensions that cannot be processed: delta CRLs, indirect CRLs
/// (`certificateIssuer`), reason-partitioned CRLs, and any other critical extension.
public struct CertificateRevocationList: Sendable, Hashable {
    /// A revoked certificate's entry.
    public struct Entry: Sendable, Hashable {
        /// When it was revoked.
        public let revocationDate: Date
        /// RFC 5280 §5.3.1 reason code, when given.
        public let reasonCode: Int?
    }

    /// The CRL's issuer; it must be the checked certificate's issuer.
    public let issuer: DistinguishedName
    /// When the CRL was issued.
    public let thisUpdate: Date
    /// After this date the CRL is out of date; nil when the CRL does not say.
    public let nextUpdate: Date?
    /// Revoked serial numbers (big-endian, without leading zero bytes).
    public let revoked: [[UInt8]: Entry]
    /// Issuing distribution point: the CRL covers only end-entity / only CA certificates.
    let onlyUserCertificates: Bool
    let onlyCACertificates: Bool
    /// Partitioned CRL: encoded GeneralNames of its distribution point, nil when not partitioned.
    let distributionPointNames: Set<[UInt8]>?
    let signedBytes: [UInt8]
    let signatureAlgorithm: Certificate.SignatureAlgorithm
    let signature: [UInt8]

    /// Larger CRL files are refused.
    public static let maximumFileSize = 64 << 20
    /// CRLs with more entries are refused.
    public static let maximumEntries = 2_000_000

    /// Parses one DER CRL.
    public init(derEncoded der: [UInt8]) throws(CertificateRevocationError) {
        do {
            let list = try CRLDecoder.children(DER.parse(der), count: 3)
            let fields = try CRLDecoder.children(list[0])
            var index = 0
            if fields.first?.identifier == .integer {
                guard case .primitive(let version) = fields[0].content, Array(version) == [1] else {
                    throw CertificateRevocationError("unsupported CRL version")
                }
                index = 1
            }
            guard fields.count >= index + 4, fields[index].identifier == .sequence else {
                throw CertificateRevocationError("malformed CRL: not a certificate revocation list")
            }
            guard fields[index].encodedBytes.elementsEqual(list[1].encodedBytes) else {
                throw CertificateRevocationError("the CRL's two signature algorithms differ")
            }
            signatureAlgorithm = try CRLDecoder.signatureAlgorithm(list[1])
            issuer = try DistinguishedName(derEncoded: fields[index + 1])
            thisUpdate = try CRLDecoder.time(fields[index + 2])
            index += 3
            var next: Date?
            if index < fields.count, [ASN1Identifier.utcTime, .generalizedTime].contains(fields[index].identifier) {
                next = try CRLDecoder.time(fields[index])
                index += 1
            }
            nextUpdate = next
            var revoked: [[UInt8]: Entry] = [:]
            if index < fields.count, fields[index].identifier == .sequence {
                for entry in try CRLDecoder.children(fields[index]) {
                    guard revoked.count < Self.maximumEntries else { throw CertificateRevocationError("more than \(Self.maximumEntries) entries") }
                    let (serial, value) = try CRLDecoder.entry(entry)
                    revoked[serial] = value
                }
                index += 1
            }
            self.revoked = revoked
            var scope = CRLDecoder.Scope()
            if index < fields.count, fields[index].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                scope = try CRLDecoder.crlExtensions(CRLDecoder.children(fields[index], count: 1)[0])
                index += 1
            }
            guard index == fields.count else { throw CertificateRevocationError("unexpected fields in the CRL") }
            onlyUserCertificates = scope.onlyUser
            onlyCACertificates = scope.onlyCA
            distributionPointNames = scope.names
            guard case .primitive(let bits) = list[2].content, list[2].identifier == .bitString, bits.first == 0 else {
                throw CertificateRevocationError("bad CRL signature")
            }
            signature = Array(bits.dropFirst())
            signedBytes = Array(list[0].encodedBytes)
        } catch let error as CertificateRevocationError {
            throw error
        } catch {
            throw CertificateRevocationError("malformed CRL (\(String(describing: error).prefix(120)))")
        }
    }

    /// Reads every CRL in `path`: PEM `X509 CRL` blocks (several allowed) or one DER CRL.
    public static func load(path: String) throws(CertificateRevocationError) -> [CertificateRevocationList] {
        let bytes: [UInt8]
        do {
            bytes = try TLSInputFile.read(path, limit: maximumFileSize)
        } catch {
            throw CertificateRevocationError("cannot read CRL file '\(path)': \(error.reason)")
        }
        do throws(CertificateRevocationError) {
            guard TLSInputFile.isPEM(bytes) else { return [try CertificateRevocationList(derEncoded: bytes)] }
            var lists: [CertificateRevocationList] = []
            for block in TLSInputFile.pemBlocks(bytes) where block.label == "X509 CRL" {
                guard let der = block.der else { throw CertificateRevocationError("corrupt base64") }
                lists.append(try CertificateRevocationList(derEncoded: der))
            }
            guard !lists.isEmpty else { throw CertificateRevocationError("no 'BEGIN X509 CRL' block") }
            return lists
        } catch {
            throw CertificateRevocationError("CRL file '\(path)': \(error.reason)")
        }
    }

    /// Whether `issuer` signed this CRL (its key verifies the signature, and its key usage, when
    /// present, allows CRL signing: RFC 5280 §4.2.1.3).
    public func isSigned(by issuer: Certificate) -> Bool {
        guard issuer.subject == self.issuer else { return false }
        if let usage = try? issuer.extensions.keyUsage, !usage.cRLSign { return false }
        return issuer.publicKey.isValidSignature(signature, for: signedBytes, signatureAlgorithm: signatureAlgorithm)
    }

    /// Whether this CRL's scope (issuer, issuing distribution point) includes `certificate`.
    func covers(_ certificate: Certificate) -> Bool {
        guard certificate.issuer == issuer else { return false }
        let isCA = (try? certificate.extensions.basicConstraints).map { if case .isCertificateAuthority = $0 { true } else { false } } ?? false
        if onlyUserCertificates && isCA { return false }
        if onlyCACertificates && !isCA { return false }
        guard let names = distributionPointNames else { return true }
        return !names.isDisjoint(with: CRLDecoder.distributionPointNames(of: certificate))
    }

    /// The entry for `certificate`'s serial number, if it is revoked.
    func entry(for certificate: Certificate) -> Entry? {
        revoked[CRLDecoder.normalizedSerial(certificate.serialNumber.bytes)]
    }
}

/// The outcome of checking a chain against the loaded CRLs.
public enum RevocationStatus: Sendable, Equatable {
    /// No certificate of the chain is revoked (and each one required had a current CRL).
    case good
    /// A certificate is revoked; the reason starts with "certificate revoked".
    case revoked(reason: String)
    /// Revocation could not be decided (no CRL for an issuer, CRL out of date); the reason starts
    /// with "revocation check failed". A trust failure too, as in OpenSSL with CRL checking on.
    case undetermined(reason: String)

    /// The one-line reason for a failure, nil when ``good``.
    public var failureReason: String? {
        switch self {
        case .good: nil
        case .revoked(let reason), .undetermined(let reason): reason
        }
    }
}

/// Checks verified chains against a set of CRLs (`--crl-file`). Signatures are verified against
/// the issuer in the chain on first use and remembered.
///
/// Coverage ``Coverage/everyCertificate`` is what wget and curl do with OpenSSL
/// (`X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL`): every certificate below the trust
/// anchor needs a current CRL from its issuer. ``Coverage/issuersWithCRL`` only checks
/// certificates whose issuer has a loaded CRL.
final class RevocationChecker: Sendable {
    /// Which certificates must have a CRL.
    public enum Coverage: Sendable, Equatable {
        /// Every certificate below the anchor needs a current CRL from its issuer (wget, curl).
        case everyCertificate
        /// Only certificates whose issuer has a loaded CRL are checked.
        case issuersWithCRL
    }

    /// The CRLs consulted.
    public let lists: [CertificateRevocationList]
    /// Which certificates must have a CRL.
    public let coverage: Coverage
    private struct SignatureKey: Hashable {
        let list: Int
        let issuer: Certificate.PublicKey
    }
    private let verified = Mutex<[SignatureKey: Bool]>([:])

    /// A checker over `lists`.
    public init(lists: [CertificateRevocationList], coverage: Coverage = .everyCertificate) {
        self.lists = lists
        self.coverage = coverage
    }

    /// Loads each of `paths` (see ``CertificateRevocationList/load(path:)``).
    public convenience init(paths: [String], coverage: Coverage = .everyCertificate) throws(CertificateRevocationError) {
        var lists: [CertificateRevocationList] = []
        for path in paths { lists += try CertificateRevocationList.load(path: path) }
        self.init(lists: lists, coverage: coverage)
    }

    /// Checks `chain` (leaf first, each certificate followed by its issuer, ending with the trust
    /// anchor, which is not checked: a verified chain as swift-certificates' `Verifier` returns
    /// it) at `now`.
    public func check(chain: [Certificate], at now: Date) -> RevocationStatus {
        guard chain.count >= 2 else { return .good }
        for position in 0..<(chain.count - 1) {
            let status = check(chain[position], issuer: chain[position + 1], at: now)
            if status != .good { return status }
        }
        return .good
    }

    private func check(_ certificate: Certificate, issuer: Certificate, at now: Date) -> RevocationStatus {
        let issuerName = CRLDecoder.shown(issuer.subject)
        let candidates = lists.indices.filter { lists[$0].covers(certificate) && isVerified($0, by: issuer) }
        guard !candidates.isEmpty else {
            return coverage == .everyCertificate ? .undetermined(reason: "revocation check failed: no CRL signed by \(issuerName)") : .good
        }
        let current = candidates.map { lists[$0] }.filter { $0.thisUpdate <= now && ($0.nextUpdate.map { now <= $0 } ?? true) }
        guard let list = current.max(by: { $0.thisUpdate < $1.thisUpdate }) else {
            return .undetermined(reason: "revocation check failed: the CRL of \(issuerName) is out of date or not yet valid")
        }
        guard let entry = list.entry(for: certificate) else { return .good }
        let serial = certificate.serialNumber.bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let reason = entry.reasonCode.flatMap { CRLDecoder.reasonNames[$0] }.map { ", reason \($0)" } ?? ""
        return .revoked(reason: "certificate revoked: serial \(serial) of \(CRLDecoder.shown(certificate.subject)) is listed by the CRL of \(issuerName)\(reason)")
    }

    private func isVerified(_ index: Int, by issuer: Certificate) -> Bool {
        let key = SignatureKey(list: index, issuer: issuer.publicKey)
        if let known = verified.withLock({ $0[key] }) { return known }
        let result = lists[index].isSigned(by: issuer)
        verified.withLock { cache in
            if cache.count >= 4096 { cache.removeAll() }
            cache[key] = result
        }
        return result
    }

    /// A swift-certificates policy that fails chains with a revoked or undecidable certificate,
    /// to be added to the `Verifier`'s policies next to `RFC5280Policy`.
    public func policy(validationTime: Date? = nil) -> CRLVerifierPolicy {
        CRLVerifierPolicy(checker: self, validationTime: validationTime)
    }
}

/// ``RevocationChecker`` as a swift-certificates `VerifierPolicy`.
struct CRLVerifierPolicy: VerifierPolicy, Sendable {
    /// None: the policy does not process certificate extensions.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []
    let checker: RevocationChecker
    /// Nil: the time of each evaluation.
    let validationTime: Date?

    /// Fails the candidate chain (leaf first, anchor last) when ``RevocationChecker/check(chain:at:)`` does not say good.
    public mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        switch checker.check(chain: Array(chain), at: validationTime ?? Date()) {
        case .good: return .meetsPolicy
        case .revoked(let reason), .undetermined(let reason): return .failsToMeetPolicy(reason: reason)
        }
    }
}

/// A CRL could not be loaded; `reason` is one line.
public struct CertificateRevocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, naming the file when there is one.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    /// ``reason``.
    public var description: String { reason }
}

/// SwiftASN1 helpers for reading CRLs.
enum CRLDecoder {
    /// The CRL scope from its issuing distribution point extension (RFC 5280 §5.2.5).
    struct Scope {
        var onlyUser = false
        var onlyCA = false
        var names: Set<[UInt8]>?
    }

    static let reasonNames: [Int: String] = [
        0: "unspecified", 1: "keyCompromise", 2: "cACompromise", 3: "affiliationChanged", 4: "superseded",
        5: "cessationOfOperation", 6: "certificateHold", 8: "removeFromCRL", 9: "privilegeWithdrawn", 10: "aACompromise",
    ]

    static func children(_ node: ASN1Node, count: Int? = nil) throws(CertificateRevocationError) -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw CertificateRevocationError("malformed CRL structure") }
        let list = Array(nodes)
        if let count, list.count != count { throw CertificateRevocationError("malformed CRL structure") }
        return list
    }

    static func signatureAlgorithm(_ node: ASN1Node) throws -> Certificate.SignatureAlgorithm {
        let oid = try ASN1ObjectIdentifier(derEncoded: children(node)[0])
        let known: [ASN1ObjectIdentifier: Certificate.SignatureAlgorithm] = [
            [1, 2, 840, 113549, 1, 1, 5]: .sha1WithRSAEncryption, [1, 2, 840, 113549, 1, 1, 11]: .sha256WithRSAEncryption,
            [1, 2, 840, 113549, 1, 1, 12]: .sha384WithRSAEncryption, [1, 2, 840, 113549, 1, 1, 13]: .sha512WithRSAEncryption,
            [1, 2, 840, 10045, 4, 3, 2]: .ecdsaWithSHA256, [1, 2, 840, 10045, 4, 3, 3]: .ecdsaWithSHA384,
            [1, 2, 840, 10045, 4, 3, 4]: .ecdsaWithSHA512, [1, 3, 101, 112]: .ed25519,
        ]
        guard let algorithm = known[oid] else { throw CertificateRevocationError("unsupported CRL signature algorithm \(oid)") }
        return algorithm
    }

    /// UTCTime or GeneralizedTime (UTC) as a Date.
    static func time(_ node: ASN1Node) throws -> Date {
        let parts: (Int, Int, Int, Int, Int, Int)
        if node.identifier == .utcTime {
            let t = try UTCTime(derEncoded: node)
            parts = (t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        } else {
            let t = try GeneralizedTime(derEncoded: node)
            parts = (t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let (month, day) = (parts.1, parts.2)
        let year = parts.0 - (month <= 2 ? 1 : 0)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + parts.3 * 3600 + parts.4 * 60 + parts.5))
    }

    /// Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }
    static func extensions(_ node: ASN1Node) throws -> [(oid: ASN1ObjectIdentifier, critical: Bool, value: [UInt8])] {
        try children(node).map { item in
            let parts = try children(item)
            guard (2...3).contains(parts.count) else { throw CertificateRevocationError("malformed CRL extension") }
            let critical = parts.count == 3 ? try Bool(derEncoded: parts[1]) : false
            return (try ASN1ObjectIdentifier(derEncoded: parts[0]), critical, Array(try ASN1OctetString(derEncoded: parts[parts.count - 1]).bytes))
        }
    }

    static func entry(_ node: ASN1Node) throws -> ([UInt8], CertificateRevocationList.Entry) {
        let parts = try children(node)
        guard (2...3).contains(parts.count), case .primitive(let serial) = parts[0].content, parts[0].identifier == .integer else {
            throw CertificateRevocationError("malformed CRL entry")
        }
        var reason: Int?
        if parts.count == 3 {
            for ext in try extensions(parts[2]) {
                if ext.oid == [2, 5, 29, 21] {
                    guard let code = try? DER.parse(ext.value), code.identifier == ASN1Identifier(tagWithNumber: 10, tagClass: .universal),
                          case .primitive(let value) = code.content, value.count == 1 else { throw CertificateRevocationError("bad CRL reason code") }
                    reason = Int(value[value.startIndex])
                } else if ext.oid == [2, 5, 29, 29] {
                    throw CertificateRevocationError("indirect CRLs (certificateIssuer) are not supported")
                } else if ext.critical {
                    throw CertificateRevocationError("unsupported critical CRL entry extension \(ext.oid)")
                }
            }
        }
        return (normalizedSerial(serial), .init(revocationDate: try time(parts[1]), reasonCode: reason))
    }

    static func crlExtensions(_ node: ASN1Node) throws -> Scope {
        var scope = Scope()
        for ext in try extensions(node) {
            if ext.oid == [2, 5, 29, 27] { throw CertificateRevocationError("delta CRLs are not supported") }
            if ext.oid == [2, 5, 29, 28] {
                for field in try children(DER.parse(ext.value)) {
                    guard field.identifier.tagClass == .contextSpecific else { throw CertificateRevocationError("malformed issuing distribution point") }
                    let on: Bool = if case .primitive(let bytes) = field.content { bytes.last.map { $0 != 0 } ?? false } else { false }
                    switch field.identifier.tagNumber {
                    case 0: scope.names = try fullNames(field)
                    case 1: scope.onlyUser = on
                    case 2: scope.onlyCA = on
                    default: throw CertificateRevocationError("reason-partitioned, indirect or attribute CRLs are not supported")
                    }
                }
            } else if ext.critical {
                throw CertificateRevocationError("unsupported critical CRL extension \(ext.oid)")
            }
        }
        return scope
    }

    /// distributionPoint [0] { fullName [0] GeneralNames }: the encoded GeneralNames.
    static func fullNames(_ distributionPoint: ASN1Node) throws -> Set<[UInt8]> {
        guard let name = try children(distributionPoint).first,
              name.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) else {
            throw CertificateRevocationError("distribution points relative to the CRL issuer are not supported")
        }
        return Set(try children(name).map { Array($0.encodedBytes) })
    }

    /// The full names of a certificate's CRL distribution points extension (RFC 5280 §4.2.1.13).
    static func distributionPointNames(of certificate: Certificate) -> Set<[UInt8]> {
        guard let ext = certificate.extensions[oid: [2, 5, 29, 31]], let points = try? children(DER.parse(Array(ext.value))) else { return [] }
        var names: Set<[UInt8]> = []
        for point in points {
            guard let fields = try? children(point) else { continue }
            for field in fields where field.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                names.formUnion((try? fullNames(field)) ?? [])
            }
        }
        return names
    }

    /// Serial bytes without leading zeros (at least one byte).
    static func normalizedSerial<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        let trimmed = Array(bytes.drop { $0 == 0 })
        return trimmed.isEmpty ? [0] : trimmed
    }

    /// A distinguished name for a message: control characters replaced, at most 160 characters.
    static func shown(_ name: DistinguishedName) -> String {
        String(String(describing: name).prefix(160).map { $0.isASCII && ($0.asciiValue ?? 0) < 0x20 || $0 == "\u{7F}" ? "?" : $0 })
    }
}
