/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.6.1,
/// §11.7.1), as sent: `Digest realm="x", nonce="y"` or `Negotiate abc==`.
///
/// The scheme and parameter names keep the case the server used; compare them with
/// ``hasScheme(_:)`` and ``parameter(_:)``, which ignore ASCII case (§11.1, §11.2). Parameters keep
/// their order and duplicates: RFC 9110 §11.2 says each name occurs once per challenge, and the
/// schemes decide what a duplicate means (Digest refuses a challenge that repeats a parameter it
/// uses). A challenge carries either parameters or a `token68`, never both.
public struct AuthChallenge: Sendable, Hashable {
    /// One `name=value` auth-param, the value unquoted (quoted-pair escapes resolved).
    public struct Parameter: Sendable, Hashable {
        /// The name as sent.
        public let name: String
        /// The value: a token, or the content of a quoted-string without its escapes.
        public let value: String

        /// A parameter `name=value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The auth-scheme as sent ("Basic", "digest").
    public let scheme: String
    /// The auth-params in the order sent; empty when there are none or when ``token68`` is set.
    public let parameters: [Parameter]
    /// The token68 form (`Negotiate abc==`), or nil.
    public let token68: String?

    /// A challenge with `scheme`, `parameters` and `token68`.
    public init(scheme: String, parameters: [Parameter] = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// True when the scheme is `name`, ignoring ASCII case.
    public func hasScheme(_ name: String) -> Bool { scheme.caseInsensitiveEquals(name) }

    /// The value of the first parameter called `name` (ASCII case ignored), or nil.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// How many parameters are called `name` (ASCII case ignored): more than one is a duplicate.
    public func occurrences(of name: String) -> Int {
        parameters.reduce(0) { $0 + ($1.name.caseInsensitiveEquals(name) ? 1 : 0) }
    }
}

extension AuthChallenge {
    /// What the parser keeps, whatever the server sends. A field longer than `fieldBytes` is
    /// ignored whole (a cut field could change a challenge's meaning); a challenge with more than
    /// `parametersPerChallenge` parameters is dropped (keeping part of it could drop its
    /// `algorithm`); at most `challenges` challenges and `fields` field lines are read.
    public enum Limits {
        /// The longest field value read: 64 KiB (a Negotiate token can take several KiB).
        public static let fieldBytes = 65_536
        /// Field lines read per response.
        public static let fields = 64
        /// Challenges kept per response.
        public static let challenges = 64
        /// Parameters per challenge.
        public static let parametersPerChallenge = 64
    }

    /// The challenges of every field line of one header (each `WWW-Authenticate` or each
    /// `Proxy-Authenticate` value, in order). Each line is parsed on its own, as browsers and curl
    /// do, so a malformed line cannot swallow the next one. Malformed challenges are skipped;
    /// parsing resumes at the next list element that starts a challenge. Never fails.
    public static func parse(fields: [String]) -> [AuthChallenge] {
        var result: [AuthChallenge] = []
        for field in fields.prefix(Limits.fields) {
            guard result.count < Limits.challenges else { break }
            result += parse(field: field).prefix(Limits.challenges - result.count)
        }
        return result
    }

    /// The challenges of one field value (RFC 9110 §11.6.1: `#challenge`, where
    /// `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`).
    ///
    /// The comma is ambiguous (it separates challenges and the parameters of one challenge);
    /// as §11.6.1 implies, an element of the form `token BWS "="` is a parameter of the current
    /// challenge and any other element starts a new challenge. Empty list elements are allowed
    /// (§5.6.1). Whitespace around `=` is accepted (BWS), and a tab where a space is expected.
    public static func parse(field: String) -> [AuthChallenge] {
        let bytes = Array(field.utf8)
        guard bytes.count <= Limits.fieldBytes else { return [] }
        var scanner = ChallengeScanner(bytes: bytes)
        var result: [AuthChallenge] = []
        while result.count < Limits.challenges {
            scanner.skipSeparators()
            guard !scanner.atEnd else { break }
            if let challenge = scanner.challenge() {
                result.append(challenge)
            } else {
                scanner.skipElement()
            }
        }
        return result
    }
}

/// The byte scanner behind ``AuthChallenge/parse(field:)``: RFC 9110 §5.6 tokens, quoted-strings
/// and lists. Every loop advances `index`, so parsing is linear in the field's length.
struct ChallengeScanner {
    /// The field value's UTF-8 bytes.
    let bytes: [UInt8]
    /// The next byte to read.
    var index = 0

    /// True when every byte was read.
    var atEnd: Bool { index >= bytes.count }
    /// The byte at the index, or nil at the end.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The characters of token68 before its trailing `=` (RFC 9110 §11.2).
    static func isToken68Char(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// SP or HTAB (OWS, RFC 9110 §5.6.3).
    static func isOWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// Skips optional white space.
    mutating func skipOWS() {
        while let c = current, Self.isOWS(c) { index += 1 }
    }

    /// Skips white space and empty list elements.
    mutating func skipSeparators() {
        while let c = current, Self.isOWS(c) || c == UInt8(ascii: ",") { index += 1 }
    }

    /// Skips a malformed element: up to the next comma outside a quoted-string (or the end).
    mutating func skipElement() {
        var quoted = false
        while let c = current {
            if quoted {
                if c == UInt8(ascii: "\\") { index += 1 } else if c == UInt8(ascii: "\"") { quoted = false }
            } else if c == UInt8(ascii: "\"") {
                quoted = true
            } else if c == UInt8(ascii: ",") {
                return
            }
            index += 1
        }
    }

    /// 1*tchar, or nil (index unchanged).
    mutating func token() -> String? {
        let start = index
        while let c = current, Self.isTokenChar(c) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted-string's content with quoted-pairs resolved, or nil when it is unterminated or
    /// holds a control character other than HTAB (§5.6.4). The index is left after the closing
    /// quote even when the content is invalid, so that parsing resumes after the string.
    mutating func quotedString() -> String? {
        guard current == UInt8(ascii: "\"") else { return nil }
        index += 1
        var value: [UInt8] = []
        var valid = true
        let isAllowed: (UInt8) -> Bool = { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
        while let c = current {
            index += 1
            if c == UInt8(ascii: "\"") {
                return valid ? String(decoding: value, as: UTF8.self) : nil
            }
            if c == UInt8(ascii: "\\") {
                guard let escaped = current else { return nil }
                index += 1
                valid = valid && isAllowed(escaped)
                value.append(escaped)
            } else {
                valid = valid && isAllowed(c)
                value.append(c)
            }
        }
        return nil
    }

    /// True when the element at the index looks like `token BWS "="`: a parameter, not a challenge.
    func startsParameter() -> Bool {
        var probe = self
        guard probe.token() != nil else { return false }
        probe.skipOWS()
        return probe.current == UInt8(ascii: "=")
    }

    /// At the end of the field or before a comma (after optional white space).
    func atElementEnd() -> Bool {
        var probe = self
        probe.skipOWS()
        return probe.atEnd || probe.current == UInt8(ascii: ",")
    }

    /// token68 followed by the element's end, or nil (index unchanged).
    mutating func token68() -> String? {
        let start = index
        while let c = current, Self.isToken68Char(c) { index += 1 }
        guard index > start else { return nil }
        while current == UInt8(ascii: "=") { index += 1 }
        guard atElementEnd() else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `token BWS "=" BWS ( token / quoted-string )`, or nil when malformed.
    mutating func parameter() -> AuthChallenge.Parameter? {
        guard let name = token() else { return nil }
        skipOWS()
        guard current == UInt8(ascii: "=") else { return nil }
        index += 1
        skipOWS()
        let value = current == UInt8(ascii: "\"") ? quotedString() : token()
        guard let value else { return nil }
        return AuthChallenge.Parameter(name: name, value: value)
    }

    /// One challenge starting at the index, or nil when it is malformed (the caller then skips
    /// the element). On success the index is at the start of the next element or at the end.
    mutating func challenge() -> AuthChallenge? {
        guard let scheme = token() else { return nil }
        let beforeSpace = index
        skipOWS()
        if atEnd || current == UInt8(ascii: ",") { return AuthChallenge(scheme: scheme) }
        guard index > beforeSpace else { return nil }   // `Basic"x"`, `realm=x` as a scheme
        if let value = token68() { return AuthChallenge(scheme: scheme, token68: value) }
        var parameters: [AuthChallenge.Parameter] = []
        while true {
            guard let parameter = parameter(), parameters.count < AuthChallenge.Limits.parametersPerChallenge else { return nil }
            parameters.append(parameter)
            skipOWS()
            if atEnd { break }
            guard current == UInt8(ascii: ",") else { return nil }
            skipSeparators()
            if atEnd || !startsParameter() { break }
        }
        return AuthChallenge(scheme: scheme, parameters: parameters)
    }
}
