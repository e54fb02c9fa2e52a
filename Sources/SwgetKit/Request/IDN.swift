import CIDN2

/// Internationalised host names (IDNA 2008 with UTS #46 processing) through the system's
/// libidn2, called as curl calls it (`lib/idn.c`): `idn2_to_ascii_8z` with
/// `IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL`, and when that fails once more with
/// `IDN2_TRANSITIONAL` (IDNA 2003 compatibility: `☃.net` and `faß.de` written the old way still
/// resolve). libidn2 applies the UTS #46 mapping, so upper case, full-width forms and the
/// ideographic full stop `。` become their plain forms before punycode.
///
/// As in curl, a host that is already ASCII never goes through libidn2: it is lower-cased and
/// checked, so `xn--` names typed as such are sent as typed. Every result is checked with the
/// same rules: labels of 1–63 bytes (one trailing dot allowed), at most 253 bytes in all, made of
/// letters, digits, `-` and `_` only (what `HTTPTarget` accepts and DNS can resolve), so a
/// full-width `／` cannot smuggle a path into the host after mapping. Before conversion, the URL
/// Standard's forbidden domain code points (controls, space, `# % / : < > ? @ [ \ ] ^ |`) are
/// refused with a clear message.
public enum IDN {
    /// A host name that cannot be sent.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The host as given (cut and with control characters shown as `?` in `description`).
        public let host: String
        /// What is wrong with it (libidn2's message for IDNA errors).
        public let reason: String

        /// `invalid host name 'HOST': reason`.
        public var description: String {
            "invalid host name '\(IDN.printable(host))': \(reason)"
        }
    }

    /// The longest host name in DNS, in bytes (RFC 1035 §2.3.4, without the trailing dot).
    public static let maxHostBytes = 253
    /// The longest label of a host name in DNS, in bytes (RFC 1035 §2.3.4).
    public static let maxLabelBytes = 63
    /// The longest Unicode input handed to libidn2.
    static let maxInputBytes = 1024

    /// The ASCII form of `host` sent on the wire and to DNS: punycode `xn--` labels for
    /// non-ASCII ones, lower case. IPv6 literals are not host names: the URL layer keeps them
    /// apart.
    public static func toASCII(_ host: String) throws(Error) -> String {
        guard !host.isEmpty else { throw Error(host: host, reason: "empty host name") }
        if let bad = host.unicodeScalars.first(where: isForbidden) {
            throw Error(host: host, reason: "contains \(describe(bad))")
        }
        let ascii: String
        if host.utf8.allSatisfy({ $0 < 0x80 }) {
            ascii = host.lowercased()
        } else {
            guard host.utf8.count <= maxInputBytes else { throw Error(host: host, reason: "too long") }
            let strict = Int32(bitPattern: IDN2_NFC_INPUT.rawValue | IDN2_NONTRANSITIONAL.rawValue)
            let transitional = Int32(bitPattern: IDN2_TRANSITIONAL.rawValue)
            switch callToASCII(host, flags: strict) {
            case .success(let result):
                ascii = result
            case .failure(let strictError):
                guard case .success(let result) = callToASCII(host, flags: transitional) else {
                    throw Error(host: host, reason: strictError.reason)
                }
                ascii = result
            }
        }
        if let reason = problem(inASCII: ascii) { throw Error(host: host, reason: reason) }
        return ascii
    }

    /// The form of an ASCII host name to show people: `xn--` labels decoded, when that is safe.
    /// The Unicode form is shown only if it converts back to exactly the same ASCII name
    /// (so invalid punycode such as `xn--a`, or a name mixing cases, is shown as it is).
    /// Never throws: what cannot be shown in Unicode is shown as given.
    public static func toUnicode(_ host: String) -> String {
        let lower = host.lowercased()
        guard lower.utf8.allSatisfy({ $0 < 0x80 }), lower.utf8.count <= maxInputBytes + 1,
              lower.split(separator: ".").contains(where: { $0.hasPrefix("xn--") }),
              !lower.unicodeScalars.contains(where: isForbidden)
        else { return host }
        var output: UnsafeMutablePointer<CChar>?
        let rc = idn2_to_unicode_8z8z(lower, &output, 0)
        defer { idn2_free(output) }
        guard rc == Int32(IDN2_OK.rawValue), let output else { return host }
        let unicode = String(cString: output)
        guard let back = try? toASCII(unicode), back == lower else { return host }
        return unicode
    }

    /// Percent-encodes what cannot appear as it is in a URL's path, query or fragment on the
    /// wire (RFC 3986 §2.1, the URL Standard's path percent-encode set): every byte of a
    /// non-ASCII character's UTF-8 form, C0 controls, space, DEL and `" < > \ ^ ` { | }`, and
    /// a `%` that does not start a `%XX` escape. Existing `%XX` escapes are kept; reserved
    /// characters (`/ ? # [ ] @ ! $ & ' ( ) * + , ; =`) are kept. `alsoEncoding` adds bytes
    /// (`@` and `/` in a user name).
    public static func percentEncoded(_ text: some StringProtocol, alsoEncoding extra: Set<UInt8> = []) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for (index, byte) in bytes.enumerated() {
            let isEscape = byte == 0x25 && index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            if (byte == 0x25 && !isEscape) || mustEncode(byte) || extra.contains(byte) {
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a byte is always percent-encoded in a path, query or fragment.
    static func mustEncode(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F...0xFF: return true
        case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D: return true  // " < > \ ^ ` { | }
        default: return false
        }
    }

    /// Whether a byte is an ASCII hex digit.
    static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// libidn2's `idn2_to_ascii_8z`, with its error text on failure.
    static func callToASCII(_ host: String, flags: Int32) -> Result<String, Error> {
        var output: UnsafeMutablePointer<CChar>?
        let rc = idn2_to_ascii_8z(host, &output, flags)
        defer { idn2_free(output) }
        guard rc == Int32(IDN2_OK.rawValue), let output else {
            let message = idn2_strerror(rc).map { String(cString: $0) } ?? "error \(rc)"
            return .failure(Error(host: host, reason: message))
        }
        return .success(String(cString: output))
    }

    /// Why an ASCII host name cannot be used, or nil.
    static func problem(inASCII host: String) -> String? {
        if let bad = host.unicodeScalars.first(where: { !isHostScalar($0) }) {
            return "contains \(describe(bad))"
        }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }  // `example.com.`
        if labels.contains(where: \.isEmpty) { return "empty label" }
        if labels.contains(where: { $0.utf8.count > maxLabelBytes }) { return "label longer than \(maxLabelBytes) bytes" }
        let length = labels.reduce(labels.count - 1) { $0 + $1.utf8.count }
        if length > maxHostBytes { return "longer than \(maxHostBytes) bytes" }
        return nil
    }

    /// Letters, digits, `-`, `_` and `.`: what an ASCII host name is made of.
    static func isHostScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "-" || scalar == "_" || scalar == "."
    }

    /// The URL Standard's forbidden domain code points, plus DEL and the C1 controls.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x20, 0x7F...0x9F: return true
        default: return "#%/:<>?@[\\]^|".unicodeScalars.contains(scalar)
        }
    }

    /// A forbidden scalar named for an error line.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar == " " { return "a space" }
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
            return "a control character (U+\(String(scalar.value, radix: 16, uppercase: true)))"
        }
        return "'\(Character(scalar))', which is not allowed in a host name"
    }

    /// `text` cut to 100 characters, control characters shown as `?`, for error lines.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(100).map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) })
    }
}
