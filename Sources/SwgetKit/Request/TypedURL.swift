/// A URL as a person typed it (on the command line or in a list), turned into the ASCII string
/// sent on the wire and the string shown to people.
///
/// - The host goes through `IDN.toASCII` (after percent-decoding, as the URL Standard does:
///   `b%C3%BCcher.example` is `bücher.example`); the display shows `IDN.toUnicode` of it.
///   IPv6 literals (`[::1]`) are kept apart and lower-cased.
/// - The path, query and fragment are percent-encoded with `IDN.percentEncoded`: non-ASCII
///   characters as their UTF-8 bytes, spaces as `%20`; existing escapes are kept. An empty path
///   becomes `/`. The display decodes escapes of printable non-ASCII characters back (so
///   `/ünï%20code` shows as `/ünï%20code`, sent as `/%C3%BCn%C3%AF%20code`).
/// - Leading and trailing spaces and control characters are removed, and tabs and line breaks
///   inside are dropped (URL Standard, basic URL parser); without `scheme://` the default
///   scheme is assumed (`http`, as wget and curl do).
/// - The password of `user:password@` is sent but never shown.
public struct TypedURL: Sendable, Equatable {
    /// What was typed that cannot become a URL.
    public struct ParseError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// What was typed.
        public let url: String
        /// What is wrong with it.
        public let reason: String
        /// `invalid URL 'URL': reason`.
        public var description: String { "invalid URL '\(IDN.printable(url))': \(reason)" }
    }

    /// The ASCII URL for the request (punycode host, percent-encoded path and query).
    public let wire: String
    /// The URL for people: Unicode host, decoded non-ASCII characters, no password.
    public let display: String
    /// The lower-case scheme.
    public let scheme: String
    /// The wire host (ASCII; IPv6 literals with their brackets).
    public let host: String
    /// The port written in the URL (0...65535), or nil when none is (the scheme's default applies).
    public let port: Int?

    /// The longest URL accepted, in UTF-8 bytes.
    public static let maxBytes = 64 * 1024

    /// Parses what was typed. `defaultScheme` is used when there is no `scheme://`; nil makes
    /// that an error.
    public init(_ typed: String, defaultScheme: String? = "http") throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(url: typed, reason: reason) }
        guard typed.utf8.count <= Self.maxBytes else { throw fail("longer than \(Self.maxBytes) bytes") }
        var text = Substring(typed)
        while let first = text.unicodeScalars.first, first.value <= 0x20 { text = text.dropFirst() }
        while let last = text.unicodeScalars.last, last.value <= 0x20 { text = text.dropLast() }
        text = Substring(String(text.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
        guard !text.isEmpty else { throw fail("empty URL") }

        // Delimiters are found among scalars, never Characters: a delimiter followed by a
        // combining mark ("#\u{302}") is one Character, and a wire form that kept it raw would
        // split elsewhere when read again (found by FuzzURL).
        var rest: Substring
        if let range = text.unicodeScalars.firstRange(of: "://".unicodeScalars), Self.isScheme(text[..<range.lowerBound]) {
            scheme = text[..<range.lowerBound].lowercased()
            rest = text[range.upperBound...]
        } else if let defaultScheme {
            scheme = defaultScheme.lowercased()
            rest = text
        } else {
            throw fail("no scheme (such as http://)")
        }

        let authorityEnd = rest.unicodeScalars.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        var userWire = "", userDisplay = ""
        if let at = authority.unicodeScalars.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.unicodeScalars.index(after: at)...]
            let user = userinfo.unicodeScalars.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(Substring.init)
            userWire = IDN.percentEncoded(user[0], alsoEncoding: [0x40, 0x3A]) // @ :
            if user.count > 1 { userWire += ":" + IDN.percentEncoded(user[1], alsoEncoding: [0x40]) }
            userWire += "@"
            userDisplay = Self.displayed(IDN.percentEncoded(user[0], alsoEncoding: [0x40, 0x3A])) + "@"
        }

        var hostText = authority
        var portText: Substring?
        if authority.unicodeScalars.first == "[" {
            guard let close = authority.unicodeScalars.firstIndex(of: "]") else { throw fail("unclosed '[' in the host") }
            let afterClose = authority.unicodeScalars.index(after: close)
            hostText = authority[..<afterClose]
            let after = authority[afterClose...]
            if !after.isEmpty {
                guard after.unicodeScalars.first == ":" else { throw fail("unexpected text after ']'") }
                portText = after[after.unicodeScalars.index(after: after.startIndex)...]
            }
        } else if let colon = authority.unicodeScalars.lastIndex(of: ":") {
            hostText = authority[..<colon]
            portText = authority[authority.unicodeScalars.index(after: colon)...]
        }
        if let portText, !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portText), number <= 65535
            else { throw fail("bad port number '\(IDN.printable(String(portText)))'") }
            port = number
        } else {
            port = nil
        }

        let displayHost: String
        if hostText.unicodeScalars.first == "[" {
            let inner = Substring(hostText.unicodeScalars.dropFirst().dropLast())
            guard !inner.isEmpty, inner.utf8.count <= 45,
                  inner.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." })
            else { throw fail("bad IPv6 address '\(IDN.printable(String(hostText)))'") }
            host = hostText.lowercased()
            displayHost = host
        } else {
            let decoded: String
            if hostText.contains("%") {
                guard let text = Self.percentDecodedUTF8(hostText) else { throw fail("host is not valid UTF-8 once decoded") }
                decoded = text
            } else {
                decoded = String(hostText)
            }
            do {
                host = try IDN.toASCII(decoded)
            } catch {
                throw fail(error.reason)
            }
            displayHost = IDN.toUnicode(host)
        }

        var pathEnd = rest.unicodeScalars.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var path = IDN.percentEncoded(rest[..<pathEnd])
        if path.isEmpty { path = "/" }
        var tail = "", tailDisplay = ""
        rest = rest[pathEnd...]
        if rest.unicodeScalars.first == "?" {
            pathEnd = rest.unicodeScalars.firstIndex(of: "#") ?? rest.endIndex
            let query = IDN.percentEncoded(rest[rest.unicodeScalars.index(after: rest.startIndex)..<pathEnd])
            tail += "?" + query
            tailDisplay += "?" + Self.displayed(query)
            rest = rest[pathEnd...]
        }
        if rest.unicodeScalars.first == "#" {
            let fragment = IDN.percentEncoded(rest[rest.unicodeScalars.index(after: rest.startIndex)...])
            tail += "#" + fragment
            tailDisplay += "#" + Self.displayed(fragment)
        }
        let portSuffix = port.map { ":\($0)" } ?? ""
        wire = scheme + "://" + userWire + host + portSuffix + path + tail
        display = scheme + "://" + userDisplay + displayHost + portSuffix + Self.displayed(path) + tailDisplay
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// `%XX` escapes decoded, when the result is valid UTF-8.
    static func percentDecodedUTF8(_ text: Substring) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, IDN.isHex(bytes[index + 1]), IDN.isHex(bytes[index + 2]),
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A percent-encoded component for display: escapes that form a printable non-ASCII
    /// character are decoded; ASCII escapes (`%20`, `%2F`), invalid UTF-8, controls, bidi
    /// controls and invisible spaces stay encoded.
    static func displayed(_ encoded: String) -> String {
        let bytes = Array(encoded.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            var run: [UInt8] = []
            var end = index
            while end + 2 < bytes.count, bytes[end] == 0x25, IDN.isHex(bytes[end + 1]), IDN.isHex(bytes[end + 2]),
                  let value = UInt8(String(decoding: bytes[(end + 1)...(end + 2)], as: UTF8.self), radix: 16) {
                run.append(value)
                end += 3
            }
            guard !run.isEmpty else {
                out.append(bytes[index])
                index += 1
                continue
            }
            var position = 0
            while position < run.count {
                if let (scalar, length) = Self.decodeScalar(run, at: position), Self.isShown(scalar) {
                    out += Array(String(Character(scalar)).utf8)
                    position += length
                } else {
                    out += Array(bytes[(index + 3 * position)..<(index + 3 * position + 3)])
                    position += 1
                }
            }
            index = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The non-ASCII scalar encoded at `position`, and its length.
    static func decodeScalar(_ bytes: [UInt8], at position: Int) -> (Unicode.Scalar, Int)? {
        guard bytes[position] >= 0x80 else { return nil }
        for length in 2...4 where position + length <= bytes.count {
            if let text = String(validating: bytes[position..<(position + length)], as: UTF8.self),
               text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first {
                return (scalar, length)
            }
        }
        return nil
    }

    static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x80...0xA0, 0xAD, 0x1680, 0x180E, 0x2000...0x200F, 0x2028...0x202F, 0x205F...0x206F, 0x3000, 0xFEFF, 0xFFF9...0xFFFD:
            return false
        default:
            return !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
                && scalar.properties.generalCategory != .format && scalar.properties.generalCategory != .privateUse
        }
    }
}
