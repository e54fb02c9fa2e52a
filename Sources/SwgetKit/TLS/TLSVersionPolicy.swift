import NIOSSL

/// The TLS versions and TLS 1.2 cipher suites a connection may use, resolved from the options of
/// wget (`--secure-protocol auto|TLSv1_2|TLSv1_3|PFS`) and curl (`--tlsv1.2`, `--tlsv1.3`,
/// `--tls-max VERSION`, `--ciphers LIST`).
///
/// Decisions:
/// - The floor is TLS 1.2: TLS 1.0 and 1.1 are never negotiated (RFC 8996 deprecates them).
///   Options that only raise a minimum (curl's `--tlsv1`, `--tlsv1.0`, `--tlsv1.1`) are
///   accepted and mean "TLS 1.2 or later", since any connection swget makes satisfies them.
///   Options that would *require* an old version are refused with
///   ``TLSVersionPolicyError/insecureVersion(_:)``: wget's `--secure-protocol=SSLv2|SSLv3|TLSv1|TLSv1_1`
///   and curl's `--tls-max 1.0|1.1`. There is no switch to allow them.
/// - wget's `TLSv1_2` / `TLSv1_3` set the minimum (wget's OpenSSL and GnuTLS builds both do);
///   `PFS` keeps the default versions and restricts TLS 1.2 to ECDHE key exchange (TLS 1.3 is
///   always forward-secret). `auto` is the default.
/// - Several minimums combine to the highest; a maximum below the minimum is
///   ``TLSVersionPolicyError/unsatisfiable(minimum:maximum:)``.
/// - `--ciphers` is an OpenSSL/BoringSSL cipher string for TLS 1.2 and below (TLS 1.3 suites
///   cannot be chosen in NIOSSL, as in curl's `--ciphers`); it overrides PFS's list. With a
///   TLS 1.3 minimum it has no effect. It is checked here against a model of BoringSSL's rules
///   (``CipherStringModel``): NIOSSL stops the process (`precondition`) when BoringSSL refuses
///   a list, so a list that is malformed or selects no suite must never reach
///   `TLSConfiguration.cipherSuites`. Unknown names are ignored as BoringSSL does; equal-
///   preference groups (`[A|B]`) are refused.
public struct TLSVersionPolicy: Sendable, Equatable {
    /// A TLS protocol version.
    public enum Version: Int, Sendable, Comparable, CustomStringConvertible {
        /// Refused (RFC 8996); exists to parse and name what users ask for.
        case tls1_0 = 10
        /// Refused (RFC 8996).
        case tls1_1 = 11
        case tls1_2 = 12
        case tls1_3 = 13

        /// curl's spelling: "1.0", "1.1", "1.2", "1.3" (also "1" for 1.0).
        public init?(curlName: String) {
            switch curlName {
            case "1", "1.0": self = .tls1_0
            case "1.1": self = .tls1_1
            case "1.2": self = .tls1_2
            case "1.3": self = .tls1_3
            default: return nil
            }
        }

        /// Older versions are smaller.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// "TLS 1.2".
        public var description: String { "TLS 1.\(rawValue - 10)" }

        var nio: TLSVersion {
            switch self {
            case .tls1_0: .tlsv1
            case .tls1_1: .tlsv11
            case .tls1_2: .tlsv12
            case .tls1_3: .tlsv13
            }
        }
    }

    /// wget's `--secure-protocol` values that swget supports.
    public enum SecureProtocol: Sendable, Equatable {
        /// The default: TLS 1.2 or later.
        case auto
        /// TLS 1.2 or later.
        case tlsv1_2
        /// TLS 1.3 only.
        case tlsv1_3
        /// Default versions, forward-secret (ECDHE) suites only on TLS 1.2.
        case pfs

        /// Parses a `--secure-protocol` value (case-insensitive).
        public init(parsing value: String) throws(TLSVersionPolicyError) {
            switch value.lowercased() {
            case "auto": self = .auto
            case "tlsv1_2": self = .tlsv1_2
            case "tlsv1_3": self = .tlsv1_3
            case "pfs": self = .pfs
            case "sslv2", "sslv3", "tlsv1", "tlsv1_1": throw .insecureVersion(String(value.prefix(10)))
            default: throw .unknownProtocol(String(value.prefix(40)))
            }
        }
    }

    /// The lowest version offered (never below TLS 1.2).
    public private(set) var minimum: Version = .tls1_2
    /// The highest version offered; nil for no limit (TLS 1.3 today).
    public private(set) var maximum: Version?
    /// The cipher string for TLS 1.2, nil for NIOSSL's default list.
    public private(set) var cipherList: String?

    /// ECDHE only, AEAD first: what `--secure-protocol=PFS` allows on TLS 1.2.
    public static let forwardSecrecyCiphers = "ECDHE+AESGCM:ECDHE+CHACHA20:ECDHE+AES:!aNULL:!eNULL:!MD5"
    /// The longest `--ciphers` value accepted.
    public static let maximumCipherListLength = 2048

    /// The default: TLS 1.2 or later, NIOSSL's cipher list.
    public init() {}

    /// Resolves the options. `minimums` are curl's `--tlsv1.x` minimums in any order;
    /// `maximum` is curl's `--tls-max` (nil or "default" for no limit).
    public init(secureProtocol: SecureProtocol = .auto, minimums: [Version] = [], maximum: String? = nil,
                ciphers: String? = nil) throws(TLSVersionPolicyError) {
        var minimum = Version.tls1_2
        switch secureProtocol {
        case .auto: break
        case .tlsv1_2: minimum = .tls1_2
        case .tlsv1_3: minimum = .tls1_3
        case .pfs: cipherList = Self.forwardSecrecyCiphers
        }
        minimum = max(minimum, minimums.max() ?? .tls1_2)
        if let maximum, maximum != "default" {
            guard let version = Version(curlName: maximum) else { throw .unknownVersion(String(maximum.prefix(20))) }
            guard version >= .tls1_2 else { throw .insecureVersion(version.description) }
            guard version >= minimum else { throw .unsatisfiable(minimum: minimum, maximum: version) }
            self.maximum = version
        }
        self.minimum = minimum
        if let ciphers {
            guard !ciphers.isEmpty, ciphers.utf8.count <= Self.maximumCipherListLength,
                  ciphers.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { throw .invalidCipherList }
            switch CipherStringModel.select(ciphers) {
            case .success(let suites) where !suites.isEmpty: cipherList = ciphers
            case .success: throw .noKnownCipher(ciphers)
            case .failure: throw .invalidCipherList
            }
        }
    }

    /// Applies the bounds and cipher list to a NIOSSL configuration.
    public func configure(_ configuration: inout TLSConfiguration) {
        configuration.minimumTLSVersion = minimum.nio
        configuration.maximumTLSVersion = maximum?.nio
        if let cipherList { configuration.cipherSuites = cipherList }
    }
}

/// TLS version or cipher options that cannot be used.
public enum TLSVersionPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A version before TLS 1.2 was required.
    case insecureVersion(String)
    /// `--tls-max` with a value that is not 1.0–1.3 or "default".
    case unknownVersion(String)
    /// `--secure-protocol` with an unknown value.
    case unknownProtocol(String)
    /// The minimum is above the maximum.
    case unsatisfiable(minimum: TLSVersionPolicy.Version, maximum: TLSVersionPolicy.Version)
    /// `--ciphers` empty, too long, malformed, or with control or non-ASCII characters.
    case invalidCipherList
    /// The list selects no cipher suite BoringSSL supports.
    case noKnownCipher(String)

    /// One line.
    public var description: String {
        switch self {
        case .insecureVersion(let name): "\(name) is refused as insecure: swget uses TLS 1.2 or later (RFC 8996)"
        case .unknownVersion(let name): "unknown TLS version '\(name)' (1.2, 1.3 or default)"
        case .unknownProtocol(let name): "unknown secure protocol '\(name)' (auto, TLSv1_2, TLSv1_3 or PFS)"
        case .unsatisfiable(let minimum, let maximum): "no TLS version can be used: the minimum \(minimum) is above the maximum \(maximum)"
        case .invalidCipherList: "invalid cipher list"
        case .noKnownCipher(let list): "no known cipher suite in '\(list.prefix(80))'"
        }
    }
}

/// A model of BoringSSL's cipher-string rules as NIOSSL applies them (`SSL_CTX_set_cipher_list`,
/// non-strict: `ssl_create_cipher_list` / `ssl_cipher_process_rulestr` in the BoringSSL that
/// swift-nio-ssl vendors), to know before NIOSSL does whether a list is accepted and which TLS
/// 1.2 suites it selects. Elements are separated by ':', ',', ';' or ' '; each is
/// `[!|-|+]WORD[+WORD…]` or `@STRENGTH`; a leading `DEFAULT` means `ALL`. A single word may be
/// a suite's OpenSSL or IANA name; otherwise words are aliases (intersected); an element with an
/// unknown word is ignored. `[…|…]` groups are refused here although BoringSSL has them.
enum CipherStringModel {
    struct Suite {
        let id: UInt16
        let names: [String]
        let kx: UInt8, auth: UInt8, enc: UInt8, mac: UInt8
        /// Excluded from alias additions unless an alias asks for it (3DES, CBC-SHA256).
        var deprecated: Bool { enc == enc3DES || mac == macSHA256 }
        /// AEAD or SHA-256 suites exist only in TLS 1.2.
        var tls12Only: Bool { mac != macSHA1 }
    }

    static let kRSA: UInt8 = 1, kECDHE: UInt8 = 2, kPSK: UInt8 = 4
    static let aRSASign: UInt8 = 1, aRSADecrypt: UInt8 = 2, aECDSA: UInt8 = 4, aPSK: UInt8 = 8
    static let enc3DES: UInt8 = 1, encAES128: UInt8 = 2, encAES256: UInt8 = 4, encAES128GCM: UInt8 = 8
    static let encAES256GCM: UInt8 = 16, encCHACHA: UInt8 = 32
    static let macSHA1: UInt8 = 1, macSHA256: UInt8 = 2, macAEAD: UInt8 = 4

    /// BoringSSL's TLS 1.2 suites.
    static let suites: [Suite] = [
        Suite(id: 0x000A, names: ["DES-CBC3-SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA"], kx: kRSA, auth: aRSADecrypt, enc: enc3DES, mac: macSHA1),
        Suite(id: 0x002F, names: ["AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"], kx: kRSA, auth: aRSADecrypt, enc: encAES128, mac: macSHA1),
        Suite(id: 0x0035, names: ["AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA"], kx: kRSA, auth: aRSADecrypt, enc: encAES256, mac: macSHA1),
        Suite(id: 0x008C, names: ["PSK-AES128-CBC-SHA", "TLS_PSK_WITH_AES_128_CBC_SHA"], kx: kPSK, auth: aPSK, enc: encAES128, mac: macSHA1),
        Suite(id: 0x008D, names: ["PSK-AES256-CBC-SHA", "TLS_PSK_WITH_AES_256_CBC_SHA"], kx: kPSK, auth: aPSK, enc: encAES256, mac: macSHA1),
        Suite(id: 0x009C, names: ["AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"], kx: kRSA, auth: aRSADecrypt, enc: encAES128GCM, mac: macAEAD),
        Suite(id: 0x009D, names: ["AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384"], kx: kRSA, auth: aRSADecrypt, enc: encAES256GCM, mac: macAEAD),
        Suite(id: 0xC009, names: ["ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"], kx: kECDHE, auth: aECDSA, enc: encAES128, mac: macSHA1),
        Suite(id: 0xC00A, names: ["ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"], kx: kECDHE, auth: aECDSA, enc: encAES256, mac: macSHA1),
        Suite(id: 0xC013, names: ["ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"], kx: kECDHE, auth: aRSASign, enc: encAES128, mac: macSHA1),
        Suite(id: 0xC014, names: ["ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"], kx: kECDHE, auth: aRSASign, enc: encAES256, mac: macSHA1),
        Suite(id: 0xC023, names: ["ECDHE-ECDSA-AES128-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"], kx: kECDHE, auth: aECDSA, enc: encAES128, mac: macSHA256),
        Suite(id: 0xC027, names: ["ECDHE-RSA-AES128-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"], kx: kECDHE, auth: aRSASign, enc: encAES128, mac: macSHA256),
        Suite(id: 0xC02B, names: ["ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"], kx: kECDHE, auth: aECDSA, enc: encAES128GCM, mac: macAEAD),
        Suite(id: 0xC02C, names: ["ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"], kx: kECDHE, auth: aECDSA, enc: encAES256GCM, mac: macAEAD),
        Suite(id: 0xC02F, names: ["ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"], kx: kECDHE, auth: aRSASign, enc: encAES128GCM, mac: macAEAD),
        Suite(id: 0xC030, names: ["ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"], kx: kECDHE, auth: aRSASign, enc: encAES256GCM, mac: macAEAD),
        Suite(id: 0xC035, names: ["ECDHE-PSK-AES128-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA"], kx: kECDHE, auth: aPSK, enc: encAES128, mac: macSHA1),
        Suite(id: 0xC036, names: ["ECDHE-PSK-AES256-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA"], kx: kECDHE, auth: aPSK, enc: encAES256, mac: macSHA1),
        Suite(id: 0xCCA8, names: ["ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"], kx: kECDHE, auth: aRSASign, enc: encCHACHA, mac: macAEAD),
        Suite(id: 0xCCA9, names: ["ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"], kx: kECDHE, auth: aECDSA, enc: encCHACHA, mac: macAEAD),
        Suite(id: 0xCCAC, names: ["ECDHE-PSK-CHACHA20-POLY1305", "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256"], kx: kECDHE, auth: aPSK, enc: encCHACHA, mac: macAEAD),
    ]
    /// TLS 1.3 suites are known names that select nothing in a TLS 1.2 list.
    static let tls13Names: Set<String> = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]

    struct Alias {
        var kx: UInt8 = 0xFF, auth: UInt8 = 0xFF, enc: UInt8 = 0xFF, mac: UInt8 = 0xFF
        /// 0: any; 10: only pre-TLS 1.2 suites ("SSLv3", "TLSv1"); 12: only TLS 1.2 suites.
        var version = 0
        var includesDeprecated = false
    }

    static let aliases: [String: Alias] = {
        let aes = encAES128 | encAES256 | encAES128GCM | encAES256GCM
        return [
            "ALL": Alias(), "HIGH": Alias(), "FIPS": Alias(),
            "kRSA": Alias(kx: kRSA), "kECDHE": Alias(kx: kECDHE), "kEECDH": Alias(kx: kECDHE), "ECDH": Alias(kx: kECDHE),
            "kPSK": Alias(kx: kPSK), "aRSA": Alias(auth: aRSASign | aRSADecrypt), "aECDSA": Alias(auth: aECDSA),
            "ECDSA": Alias(auth: aECDSA), "aPSK": Alias(auth: aPSK), "ECDHE": Alias(kx: kECDHE), "EECDH": Alias(kx: kECDHE),
            "RSA": Alias(kx: kRSA, auth: aRSASign | aRSADecrypt), "PSK": Alias(kx: kPSK, auth: aPSK),
            "3DES": Alias(enc: enc3DES, includesDeprecated: true), "AES128": Alias(enc: encAES128 | encAES128GCM),
            "AES256": Alias(enc: encAES256 | encAES256GCM), "AES": Alias(enc: aes),
            "AESGCM": Alias(enc: encAES128GCM | encAES256GCM), "CHACHA20": Alias(enc: encCHACHA),
            "SHA1": Alias(mac: macSHA1), "SHA": Alias(mac: macSHA1),
            "SSLv3": Alias(version: 10), "TLSv1": Alias(version: 10), "TLSv1.2": Alias(version: 12),
        ]
    }()

    struct Malformed: Error {}

    /// The suite IDs `list` selects, or `Malformed` where BoringSSL (or this model) refuses it.
    static func select(_ list: String) -> Result<Set<UInt16>, Malformed> {
        var active = [Bool](repeating: false, count: suites.count)
        var killed = active
        var text = Array(list.utf8)[...]
        if text.starts(with: "DEFAULT".utf8) {
            for (index, suite) in suites.enumerated() where !suite.deprecated { active[index] = true }
            text = text.dropFirst(7)
            if text.first == UInt8(ascii: ":") { text = text.dropFirst() }
        }
        let isSeparator: (UInt8) -> Bool = { ":, ;".containsByte($0) }
        let isWord: (UInt8) -> Bool = { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || "-._".containsByte($0) }
        while let first = text.first {
            enum Rule { case add, delete, order, kill, special }
            let rule: Rule
            switch first {
            case UInt8(ascii: "-"): rule = .delete
            case UInt8(ascii: "+"): rule = .order
            case UInt8(ascii: "!"): rule = .kill
            case UInt8(ascii: "@"): rule = .special
            case UInt8(ascii: "["): return .failure(Malformed())
            default: rule = .add
            }
            if rule != .add { text = text.dropFirst() }
            if isSeparator(first) {
                text = text.dropFirst()
                continue
            }
            var alias = Alias(includesDeprecated: rule != .add)
            var exact: Int?? = nil   // .some(nil): a TLS 1.3 name
            var skip = false, multi = false
            var word = ""
            while true {
                let length = text.prefix(while: isWord).count
                guard length > 0 else { return .failure(Malformed()) }
                word = String(decoding: text.prefix(length), as: UTF8.self)
                text = text.dropFirst(length)
                if rule == .special { break }
                let plus = text.first == UInt8(ascii: "+")
                if !multi && !plus {
                    if let index = suites.firstIndex(where: { $0.names.contains(word) }) { exact = .some(index) }
                    else if tls13Names.contains(word) { exact = .some(nil) }
                }
                if exact == nil {
                    if let found = aliases[word] {
                        alias.kx &= found.kx; alias.auth &= found.auth; alias.enc &= found.enc; alias.mac &= found.mac
                        alias.includesDeprecated = alias.includesDeprecated || found.includesDeprecated
                        if alias.version != 0 && alias.version != found.version { skip = true } else { alias.version = found.version }
                    } else {
                        skip = true
                    }
                }
                guard plus else { break }
                text = text.dropFirst()
                multi = true
            }
            if rule == .special {
                guard word == "STRENGTH" else { return .failure(Malformed()) }
                text = text.drop { !isSeparator($0) }
                continue
            }
            if skip { continue }
            for (index, suite) in suites.enumerated() where !killed[index] {
                let matches: Bool
                if let exact {
                    matches = exact == index
                } else {
                    if alias.version == 0 && (alias.kx == 0 || alias.auth == 0 || alias.enc == 0 || alias.mac == 0) { break }
                    matches = alias.kx & suite.kx != 0 && alias.auth & suite.auth != 0 && alias.enc & suite.enc != 0
                        && alias.mac & suite.mac != 0 && (alias.version == 0 || alias.version == (suite.tls12Only ? 12 : 10))
                        && (alias.includesDeprecated || !suite.deprecated)
                }
                guard matches else { continue }
                switch rule {
                case .add: active[index] = true
                case .delete: active[index] = false
                case .kill: active[index] = false; killed[index] = true
                case .order, .special: break
                }
            }
        }
        return .success(Set(suites.indices.filter { active[$0] && !killed[$0] }.map { suites[$0].id }))
    }
}
