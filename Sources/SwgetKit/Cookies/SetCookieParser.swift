#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one Set-Cookie header value says: the cookie-name, cookie-value and cookie-attribute-list of
/// RFC 6265bis §5.6, with each attribute reduced to the value its last occurrence gave. Whether the cookie
/// is stored, and for which domain and path, is decided by `CookieStorage` (§5.7).
public struct SetCookie: Hashable, Sendable {
    /// The cookie-name (never empty: see `CookieRejection.missingName`).
    public var name: String
    /// The cookie-value, without surrounding white space; quotes are kept (they are part of the value).
    public var value: String
    /// The expiry from the last `Expires` attribute that parsed as a cookie-date (§5.6.1), capped at
    /// `SetCookieParser.cookieAgeLimit` from now.
    public var expires: Date?
    /// The expiry from the last valid `Max-Age` attribute (§5.6.2): now plus delta-seconds, capped at the
    /// age limit; `Date.distantPast` for a value ≤ 0 (the cookie is deleted).
    public var maxAge: Date?
    /// The last `Domain` attribute with a non-empty value: a leading dot removed, ASCII-lowercased (§5.6.3).
    /// May be empty (`Domain=.`), which §5.7 treats as no Domain attribute.
    public var domain: String?
    /// The last `Path` attribute's value when it starts with "/"; nil when there is no Path attribute or the
    /// last one is empty or relative, both of which mean the request's default-path (§5.6.4).
    public var path: String?
    /// True when any `Path` attribute was present (the `__Host-` prefix asks for one, §5.7 step 21).
    public var hasPathAttribute: Bool
    /// A `Secure` attribute was present (§5.6.5).
    public var secure: Bool
    /// An `HttpOnly` attribute was present (§5.6.6).
    public var httpOnly: Bool
    /// The last `SameSite` attribute's enforcement (§5.6.7); `.unspecified` when absent or unrecognised.
    public var sameSite: Cookie.SameSite

    /// The cookie's expiry as the storage model picks it (§5.7 step 6): Max-Age wins over Expires
    /// whatever their order; nil (a session cookie) when neither is present.
    public var expiresAt: Date? { maxAge ?? expires }

    /// A parsed cookie with the given fields (the parser's result; also handy in tests).
    public init(name: String, value: String, expires: Date? = nil, maxAge: Date? = nil, domain: String? = nil,
                path: String? = nil, hasPathAttribute: Bool = false, secure: Bool = false, httpOnly: Bool = false,
                sameSite: Cookie.SameSite = .unspecified) {
        self.name = name
        self.value = value
        self.expires = expires
        self.maxAge = maxAge
        self.domain = domain
        self.path = path
        self.hasPathAttribute = hasPathAttribute || path != nil
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }
}

/// The Set-Cookie parsing algorithm of RFC 6265bis §5.6, step by step.
///
/// Limits: name and value together at most 4,096 bytes (else the cookie is ignored); an attribute whose
/// value exceeds 1,024 bytes is ignored on its own; a whole header value over 65,536 bytes is refused
/// without being read (no valid cookie can be that long). Unknown attributes are ignored. Deliberate
/// deviation: a cookie without a name (`Set-Cookie: value` or `=value`) is refused, as curl and wget do.
enum SetCookieParser {
    /// Name plus value, in bytes (§5.6 step 5).
    public static let maxNameValueBytes = 4096
    /// One attribute value, in bytes (§5.6, attribute step 6).
    public static let maxAttributeValueBytes = 1024
    /// A whole Set-Cookie value, in bytes.
    public static let maxHeaderBytes = 65_536
    /// The longest lifetime a server can give a cookie: 400 days (§5.5, §5.6.1, §5.6.2).
    public static let cookieAgeLimit: TimeInterval = 400 * 86_400

    /// Parses one Set-Cookie header value received at `now`.
    public static func parse(_ header: String, now: Date) throws(CookieRejection) -> SetCookie {
        let bytes = Array(header.utf8)
        guard bytes.count <= maxHeaderBytes else { throw .headerTooLong }
        // Step 1: CTLs other than HTAB refuse the whole string.
        guard !bytes.contains(where: isForbiddenControl) else { throw .controlCharacter }
        // Step 2: the name-value pair runs up to the first ";".
        let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let pair = bytes[..<semicolon]
        // Step 3: a pair without "=" is a nameless cookie, which we refuse.
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { throw .missingName }
        // Step 4: trim white space.
        let name = trimmingWSP(pair[..<equals])
        let value = trimmingWSP(pair[(equals + 1)...])
        guard !name.isEmpty else { throw .missingName }
        // Step 5: the size limit.
        guard name.count + value.count <= maxNameValueBytes else { throw .tooLarge }
        // Step 6.
        var cookie = SetCookie(name: string(name), value: string(value))
        parseAttributes(bytes[semicolon...], into: &cookie, now: now)
        return cookie
    }

    /// The attribute loop of §5.6: split at ";", name and value at the first "=", trim, bound, dispatch.
    static func parseAttributes(_ unparsed: ArraySlice<UInt8>, into cookie: inout SetCookie, now: Date) {
        var rest = unparsed
        while !rest.isEmpty {
            rest = rest.dropFirst()  // the ";"
            let end = rest.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
            let av = rest[..<end]
            rest = rest[end...]
            let equals = av.firstIndex(of: UInt8(ascii: "="))
            let name = trimmingWSP(equals.map { av[..<$0] } ?? av)
            let value = equals.map { trimmingWSP(av[($0 + 1)...]) } ?? []
            guard value.count <= maxAttributeValueBytes else { continue }
            apply(name: name, value: value, to: &cookie, now: now)
        }
    }

    /// §5.6.1–§5.6.7: one recognised attribute updates `cookie`; others are ignored.
    static func apply(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>, to cookie: inout SetCookie, now: Date) {
        switch lowercased(name) {
        case "expires":
            // §5.6.1: a date that does not parse leaves the attribute out.
            guard let date = CookieDate.parse(string(value)) else { return }
            cookie.expires = min(date, now.addingTimeInterval(cookieAgeLimit))
        case "max-age":
            if let seconds = deltaSeconds(value) {
                let capped = min(seconds, Int64(cookieAgeLimit))
                cookie.maxAge = capped <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(capped))
            }
        case "domain":
            // §5.6.3; an empty value is ignored, as the RFC advises.
            guard !value.isEmpty else { return }
            let domain = value.first == UInt8(ascii: ".") ? value.dropFirst() : value
            cookie.domain = string(domain.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        case "path":
            cookie.hasPathAttribute = true
            cookie.path = value.first == UInt8(ascii: "/") ? string(value) : nil
        case "secure":
            cookie.secure = true
        case "httponly":
            cookie.httpOnly = true
        case "samesite":
            switch lowercased(value) {
            case "none": cookie.sameSite = .none
            case "strict": cookie.sameSite = .strict
            case "lax": cookie.sameSite = .lax
            default: cookie.sameSite = .unspecified
            }
        default:
            return
        }
    }

    /// §5.6.2 steps 1–4: a DIGIT, or "-" followed by a DIGIT, then only DIGITs; saturates instead of
    /// overflowing. Nil when the attribute must be ignored.
    static func deltaSeconds(_ value: ArraySlice<UInt8>) -> Int64? {
        let negative = value.first == UInt8(ascii: "-")
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var magnitude: Int64 = 0
        for digit in digits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - 0x30))
            if overflow1 || overflow2 { magnitude = .max; break }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// %x00-08 / %x0A-1F / %x7F: the control characters §5.6 step 1 refuses (HTAB is allowed).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        byte <= 0x08 || (0x0A...0x1F).contains(byte) || byte == 0x7F
    }

    /// Removes leading and trailing WSP (space and HTAB).
    static func trimmingWSP(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.count <= 16 else { return "" }  // no attribute name we know is longer
        return string(bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
    }

    private static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
