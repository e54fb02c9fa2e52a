/// A `Strict-Transport-Security` header field value, parsed as RFC 6797 §6.1 says.
///
/// Grammar (RFC 6797 §6.1, with RFC 9110's token and quoted-string):
/// ```
/// Strict-Transport-Security = [ directive ] *( ";" [ directive ] )
/// directive                 = directive-name [ "=" directive-value ]
/// directive-name            = token
/// directive-value           = token / quoted-string
/// ```
/// - Directive names are case-insensitive (§6.1 item 2); `max-age` is required (§6.1.1);
///   `includeSubDomains` is valueless (§6.1.2): a value on it makes the field invalid.
/// - A directive that appears twice, in any case, makes the whole field invalid (§6.1 item 3):
///   the field is then ignored, as §8.1 requires for non-conforming fields.
/// - Unknown directives are ignored (§6.1 item 4), but they must still be well-formed.
/// - `max-age` is `delta-seconds` (digits only, token or quoted form). A value larger than
///   ``maximumMaxAge`` is clamped to it (RFC 9111 §1.2.2's rule for delta-seconds overflow), so
///   later date arithmetic cannot overflow.
/// - Hostile input is bounded: at most ``maximumFieldLength`` bytes and ``maximumDirectives``
///   directives; control characters (other than tab) and non-ASCII bytes outside quoted strings
///   are malformed.
///
/// A response may carry several fields; RFC 6797 §8.1 says only the first one is processed, so
/// the caller passes the first value alone.
public struct StrictTransportSecurity: Sendable, Equatable {
    /// How long, in seconds from reception, the host is a Known HSTS Host. 0 asks the client to
    /// forget the host (RFC 6797 §6.1.1).
    public var maxAge: Int64
    /// Whether the policy covers every subdomain of the host too (RFC 6797 §6.1.2).
    public var includeSubDomains: Bool

    /// The largest `max-age` kept: 2^31 − 1 seconds (about 68 years). Larger values are clamped.
    public static let maximumMaxAge: Int64 = 2_147_483_647
    /// Longer field values are rejected unparsed.
    public static let maximumFieldLength = 4096
    /// A field with more (non-empty) directives is rejected.
    public static let maximumDirectives = 64

    /// A policy with the given values (`maxAge` is clamped to `0...maximumMaxAge`).
    public init(maxAge: Int64, includeSubDomains: Bool) {
        self.maxAge = min(max(maxAge, 0), Self.maximumMaxAge)
        self.includeSubDomains = includeSubDomains
    }

    /// Parses one `Strict-Transport-Security` field value (RFC 6797 §6.1).
    public init(parsing value: String) throws(ParseError) {
        let bytes = Array(value.utf8)
        guard bytes.count <= Self.maximumFieldLength else { throw .tooLong }
        var parser = DirectiveParser(bytes: bytes)
        var seen: Set<String> = []
        var maxAge: Int64?
        var includeSubDomains = false
        var count = 0
        while let directive = try parser.next() {
            count += 1
            guard count <= Self.maximumDirectives else { throw .tooManyDirectives }
            guard seen.insert(directive.name).inserted else { throw .duplicateDirective(directive.name) }
            switch directive.name {
            case "max-age":
                guard let text = directive.value else { throw .invalidMaxAge("") }
                maxAge = try Self.deltaSeconds(text)
            case "includesubdomains":
                guard directive.value == nil else { throw .valueOnIncludeSubDomains }
                includeSubDomains = true
            default:
                break
            }
        }
        guard let maxAge else { throw .missingMaxAge }
        self.init(maxAge: maxAge, includeSubDomains: includeSubDomains)
    }

    /// Why a field value was rejected. The field is then ignored as a whole (RFC 6797 §8.1).
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Longer than ``StrictTransportSecurity/maximumFieldLength``.
        case tooLong
        /// More than ``StrictTransportSecurity/maximumDirectives`` directives.
        case tooManyDirectives
        /// Not the §6.1 grammar: the byte offset where parsing stopped.
        case malformed(offset: Int)
        /// No `max-age` directive (RFC 6797 §6.1.1: it is required).
        case missingMaxAge
        /// A directive name appeared twice (lowercased name).
        case duplicateDirective(String)
        /// `max-age` is not delta-seconds (the offending value, at most 32 characters).
        case invalidMaxAge(String)
        /// `includeSubDomains` carried a value (RFC 6797 §6.1.2: valueless).
        case valueOnIncludeSubDomains

        /// One line, for a warning.
        public var description: String {
            switch self {
            case .tooLong: "Strict-Transport-Security header too long"
            case .tooManyDirectives: "Strict-Transport-Security header has too many directives"
            case .malformed(let offset): "malformed Strict-Transport-Security header (at byte \(offset))"
            case .missingMaxAge: "Strict-Transport-Security header without max-age"
            case .duplicateDirective(let name): "Strict-Transport-Security directive '\(name)' repeated"
            case .invalidMaxAge(let text): "invalid Strict-Transport-Security max-age '\(text)'"
            case .valueOnIncludeSubDomains: "Strict-Transport-Security includeSubDomains with a value"
            }
        }
    }

    /// `1*DIGIT`, clamped to ``maximumMaxAge``.
    private static func deltaSeconds(_ text: String) throws(ParseError) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidMaxAge(String(text.prefix(32)))
        }
        var value: Int64 = 0
        for digit in text.utf8 {
            value = value * 10 + Int64(digit - 0x30)
            if value >= maximumMaxAge { return maximumMaxAge }
        }
        return value
    }
}

/// Splits a field value into directives; one call per directive, nil at the end.
private struct DirectiveParser {
    struct Directive {
        /// Lowercased name.
        let name: String
        /// The value, unquoted, or nil when there was no "=".
        let value: String?
    }

    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() throws(StrictTransportSecurity.ParseError) -> Directive? {
        while true {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ";") {
                index += 1
                continue
            }
            break
        }
        let name = token()
        guard !name.isEmpty else { throw .malformed(offset: index) }
        skipWhitespace()
        var value: String?
        if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                value = try quotedString()
            } else {
                let text = token()
                guard !text.isEmpty else { throw .malformed(offset: index) }
                value = text
            }
            skipWhitespace()
        }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: ";") else { throw .malformed(offset: index) }
            index += 1
        }
        return Directive(name: name.lowercased(), value: value)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    /// `1*tchar` (RFC 9110 §5.6.2), or "" when none.
    private mutating func token() -> String {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// RFC 9110 §5.6.4 quoted-string, starting at the opening quote; returns the unescaped text.
    private mutating func quotedString() throws(StrictTransportSecurity.ParseError) -> String {
        let open = index
        index += 1
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count, Self.isQuotedPairCharacter(bytes[index + 1]) else {
                    throw .malformed(offset: index)
                }
                text.append(bytes[index + 1])
                index += 2
            case 0x09, 0x20, 0x21, 0x23...0x5B, 0x5D...0x7E, 0x80...0xFF:
                text.append(byte)
                index += 1
            default:
                throw .malformed(offset: index)
            }
        }
        throw .malformed(offset: open)
    }

    /// tchar: `!#$%&'*+-.^_`|~`, digits and letters.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".containsByte(byte)
        }
    }

    /// quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
    static func isQuotedPairCharacter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }
}
