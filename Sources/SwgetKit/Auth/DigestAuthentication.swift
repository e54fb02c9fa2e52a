import Crypto
import CryptoExtras

/// Why a Digest challenge cannot be answered.
public enum DigestAuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The challenge is not a Digest challenge, or uses the token68 form.
    case notDigest
    /// A required parameter (`realm`, `nonce`) is missing.
    case missingParameter(String)
    /// A parameter that matters appears more than once (RFC 9110 §11.2 forbids it).
    case duplicateParameter(String)
    /// A parameter echoed back is longer than ``DigestChallenge/maximumParameterBytes``.
    case parameterTooLong(String)
    /// The `algorithm` is not one of RFC 7616's six.
    case unsupportedAlgorithm(String)
    /// `qop` offers neither `auth` nor `auth-int`.
    case unsupportedQOP(String)
    /// Only `auth-int` is offered and the body's digest is not available (a streamed body).
    case bodyDigestUnavailable
    /// A parameter echoed back (`realm`, `nonce`, `opaque`) holds a control character.
    case controlCharacter(String)
    /// The nonce count reached its maximum (ffffffff): a new challenge is needed.
    case nonceCountExhausted

    /// One line, for the user.
    public var description: String {
        switch self {
        case .notDigest: "not a Digest challenge"
        case .missingParameter(let name): "the Digest challenge has no \(name)"
        case .duplicateParameter(let name): "the Digest challenge repeats \(name)"
        case .parameterTooLong(let name): "the Digest challenge's \(name) is too long"
        case .unsupportedAlgorithm(let name): "unsupported Digest algorithm \(name)"
        case .unsupportedQOP(let value): "unsupported Digest qop \(value)"
        case .bodyDigestUnavailable: "the server asks for Digest auth-int, which needs the request body's digest"
        case .controlCharacter(let name): "the Digest challenge's \(name) contains a control character"
        case .nonceCountExhausted: "the Digest nonce count is exhausted"
        }
    }
}

/// The hash functions of RFC 7616 §3.3 / §6.1, hex-encoded in lowercase.
public enum DigestHash: Sendable, Hashable, CaseIterable {
    /// MD5 (RFC 1321), for compatibility only.
    case md5
    /// SHA-256 (FIPS 180-4).
    case sha256
    /// SHA-512/256 of FIPS 180-4 §5.3.6: its own initial values, not a truncated SHA-512
    /// (swift-crypto's `SHA512256`, from CryptoExtras).
    case sha512_256

    /// The lowercase hex digest of `bytes`.
    public func hex(_ bytes: some Sequence<UInt8>) -> String {
        let data = Array(bytes)
        return switch self {
        case .md5: Self.hexString(Insecure.MD5.hash(data: data))
        case .sha256: Self.hexString(SHA256.hash(data: data))
        case .sha512_256: Self.hexString(SHA512256.hash(data: data))
        }
    }

    /// The lowercase hex digest of `text`'s UTF-8 bytes.
    public func hex(_ text: String) -> String { hex(text.utf8) }

    /// A streaming hasher, for the digest of an `auth-int` body read in pieces.
    public struct Hasher: Sendable {
        private enum State: Sendable {
            case md5(Insecure.MD5), sha256(SHA256), sha512_256(SHA512256)
        }
        private var state: State

        /// A hasher for `hash`.
        public init(_ hash: DigestHash) {
            state = switch hash {
            case .md5: .md5(Insecure.MD5())
            case .sha256: .sha256(SHA256())
            case .sha512_256: .sha512_256(SHA512256())
            }
        }

        /// Adds `bytes`.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            switch state {
            case .md5(var h): h.update(bufferPointer: bytes); state = .md5(h)
            case .sha256(var h): h.update(bufferPointer: bytes); state = .sha256(h)
            case .sha512_256(var h): h.update(bufferPointer: bytes); state = .sha512_256(h)
            }
        }

        /// The lowercase hex digest of everything added.
        public func finalize() -> String {
            switch state {
            case .md5(let h): DigestHash.hexString(h.finalize())
            case .sha256(let h): DigestHash.hexString(h.finalize())
            case .sha512_256(let h): DigestHash.hexString(h.finalize())
            }
        }
    }

    /// Lowercase hex of `digest`'s bytes.
    static func hexString(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The six algorithms of RFC 7616 §3.3 / §6.1 (names compared without regard to case).
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// MD5 (the default when `algorithm` is absent).
    case md5 = "MD5"
    /// MD5 with a session key.
    case md5Session = "MD5-sess"
    /// SHA-256.
    case sha256 = "SHA-256"
    /// SHA-256 with a session key.
    case sha256Session = "SHA-256-sess"
    /// SHA-512/256.
    case sha512_256 = "SHA-512-256"
    /// SHA-512/256 with a session key.
    case sha512_256Session = "SHA-512-256-sess"

    /// The algorithm named `name` (ASCII case ignored), or nil.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.caseInsensitiveEquals(name) }) else { return nil }
        self = match
    }

    /// The hash function.
    public var hash: DigestHash {
        switch self {
        case .md5, .md5Session: .md5
        case .sha256, .sha256Session: .sha256
        case .sha512_256, .sha512_256Session: .sha512_256
        }
    }

    /// True for the `-sess` variants, whose A1 also covers the nonce and cnonce (§3.4.2).
    public var isSession: Bool {
        switch self {
        case .md5Session, .sha256Session, .sha512_256Session: true
        case .md5, .sha256, .sha512_256: false
        }
    }

    /// Preference among several challenges: SHA-512-256 > SHA-256 > MD5 (RFC 7616 §3.7 asks
    /// clients to use the first they support in the server's order; swget prefers the strongest).
    public var strength: Int {
        switch hash {
        case .md5: 1
        case .sha256: 2
        case .sha512_256: 3
        }
    }
}

/// The quality of protection (RFC 7616 §3.3): `auth`, or `auth-int` (the body is covered too).
public enum DigestQOP: String, Sendable, Hashable {
    /// Authentication only.
    case auth = "auth"
    /// Authentication with integrity of the request body.
    case authInt = "auth-int"
}

/// A Digest challenge (RFC 7616 §3.3), checked and typed.
///
/// Parameters that are echoed back or hashed (`realm`, `nonce`, `opaque`, `algorithm`, `qop`,
/// `userhash`) must occur once and hold no control character; unknown parameters are ignored (§3.3). `qop` is a quoted,
/// comma-separated list; unknown options are ignored; an absent `qop` is RFC 2069's form, still
/// answered for old servers. An absent `algorithm` means MD5.
public struct DigestChallenge: Sendable, Hashable {
    /// The longest `realm`, `nonce`, `opaque` or `domain` accepted, in bytes: 2 KiB.
    public static let maximumParameterBytes = 2048

    /// The realm (hashed into A1, echoed back).
    public let realm: String
    /// The server nonce (echoed back).
    public let nonce: String
    /// Opaque data echoed back unchanged, or nil.
    public let opaque: String?
    /// The algorithm (MD5 when absent).
    public let algorithm: DigestAlgorithm
    /// The options offered, in the server's order; empty when `qop` was absent (RFC 2069).
    public let qopOptions: [DigestQOP]
    /// `stale=true`: the nonce expired but the credential was right (§3.3); retry at once.
    public let stale: Bool
    /// `userhash=true`: send the user name hashed (§3.4.4).
    public let userhash: Bool
    /// `charset=UTF-8` (§3.3). Informational: user and password are always hashed as UTF-8.
    public let charsetUTF8: Bool
    /// The `domain` list as sent (space-separated URIs of the protection space), or nil.
    public let domain: String?

    /// Checks `challenge`. Throws ``DigestAuthenticationError``.
    public init(_ challenge: AuthChallenge) throws(DigestAuthenticationError) {
        guard challenge.hasScheme("Digest"), challenge.token68 == nil else { throw .notDigest }
        for name in ["realm", "nonce", "opaque", "algorithm", "qop", "userhash", "stale", "domain", "charset"]
        where challenge.occurrences(of: name) > 1 {
            throw .duplicateParameter(name)
        }
        for name in ["realm", "nonce", "opaque", "domain"] {
            guard let value = challenge.parameter(name) else { continue }
            guard value.utf8.count <= Self.maximumParameterBytes else { throw .parameterTooLong(name) }
            guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { throw .controlCharacter(name) }
        }
        guard let realm = challenge.parameter("realm") else { throw .missingParameter("realm") }
        guard let nonce = challenge.parameter("nonce") else { throw .missingParameter("nonce") }
        self.realm = realm
        self.nonce = nonce
        opaque = challenge.parameter("opaque")
        domain = challenge.parameter("domain")
        if let name = challenge.parameter("algorithm") {
            guard let algorithm = DigestAlgorithm(name: name) else { throw .unsupportedAlgorithm(String(name.prefix(64))) }
            self.algorithm = algorithm
        } else {
            algorithm = .md5
        }
        if let qop = challenge.parameter("qop") {
            var options: [DigestQOP] = []
            for item in qop.split(separator: ",") {
                let option = item.trimmingOWS
                if option.caseInsensitiveEquals("auth"), !options.contains(.auth) { options.append(.auth) }
                if option.caseInsensitiveEquals("auth-int"), !options.contains(.authInt) { options.append(.authInt) }
            }
            guard !options.isEmpty else { throw .unsupportedQOP(String(qop.prefix(64))) }
            qopOptions = options
        } else {
            qopOptions = []
        }
        stale = challenge.parameter("stale")?.caseInsensitiveEquals("true") ?? false
        userhash = challenge.parameter("userhash")?.caseInsensitiveEquals("true") ?? false
        charsetUTF8 = challenge.parameter("charset")?.caseInsensitiveEquals("UTF-8") ?? false
    }
}
