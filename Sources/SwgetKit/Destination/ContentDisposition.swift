/// RFC 6266 Content-Disposition, with RFC 8187 `filename*` (UTF-8 and ISO-8859-1 charsets, percent-decoded;
/// `filename*` preferred over `filename`).
///
/// Parsing is lenient where servers are known to be sloppy: a missing closing quote ends the value at the end of
/// the header, an unquoted value runs to the next ";" (spaces included), a header that starts directly with
/// parameters (`filename="a.txt"`) parses with an empty `type`, and malformed parameters are skipped.
/// The first occurrence of a parameter wins.
public struct ContentDisposition: Sendable, Equatable {
    /// The lowercased disposition type: "attachment", "inline", ... (empty when the header has only parameters).
    public var type: String
    /// The decoded file name as sent (not sanitised): `filename*` when it decodes, else `filename`.
    public var filename: String?
    /// The other parameters, keyed by lowercased name (`filename` and `filename*` excluded).
    public var parameters: [String: String]

    /// Parses a Content-Disposition header value; nil when it is empty or has no disposition type.
    public init?(_ headerValue: String) {
        var cursor = Cursor(Array(headerValue.unicodeScalars))
        cursor.skipSpace()
        let first = cursor.token()
        cursor.skipSpace()
        if !first.isEmpty, cursor.peek == "=" {
            cursor = Cursor(cursor.scalars)  // parameters without a type: read them from the start
            type = ""
        } else {
            guard !first.isEmpty else { return nil }
            type = first.lowercased()
            cursor.skipPastSemicolon()
        }
        var all: [String: String] = [:]
        while !cursor.atEnd {
            cursor.skipSpace()
            let name = cursor.token().lowercased()
            cursor.skipSpace()
            guard !name.isEmpty, cursor.peek == "=" else {
                cursor.skipPastSemicolon()
                continue
            }
            cursor.advance()
            cursor.skipSpace()
            let value: String
            if cursor.peek == "\"" {
                value = cursor.quotedString()
                cursor.skipPastSemicolon()
            } else {
                value = cursor.untilSemicolon()
            }
            if all[name] == nil { all[name] = value }
        }
        if let extended = all["filename*"].flatMap(Self.decodeExtendedValue), !extended.isEmpty {
            filename = extended
        } else if let plain = all["filename"], !plain.isEmpty {
            filename = plain
        } else {
            filename = nil
        }
        all["filename"] = nil
        all["filename*"] = nil
        parameters = all
    }

    /// Decodes an RFC 8187 ext-value `charset'language'pct-encoded`; nil for an unknown charset or bad encoding.
    static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = percentDecoded(parts[2], strict: true) else { return nil }
        switch parts[0].lowercased() {
        case "utf-8", "utf8", "us-ascii":
            return utf8String(bytes)
        case "iso-8859-1", "iso8859-1", "latin1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// Replaces each "%XX" with its byte. A malformed escape fails when `strict`, else stays as written.
    static func percentDecoded(_ text: Substring, strict: Bool) -> [UInt8]? {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%") {
                if index + 2 < input.count, let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                    output.append(high << 4 | low)
                    index += 3
                    continue
                }
                if strict { return nil }
            }
            output.append(input[index])
            index += 1
        }
        return output
    }

    /// The bytes as a String when they are valid UTF-8, else nil.
    static func utf8String(_ bytes: [UInt8]) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// A read position in the header's scalars.
    private struct Cursor {
        let scalars: [Unicode.Scalar]
        private var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index >= scalars.count }
        var peek: Unicode.Scalar? { atEnd ? nil : scalars[index] }
        mutating func advance() { index += 1 }

        mutating func skipSpace() {
            while let scalar = peek, scalar == " " || scalar == "\t" { index += 1 }
        }

        /// An RFC 9110 token (possibly empty).
        mutating func token() -> String {
            let start = index
            while let scalar = peek, Self.isTokenScalar(scalar) { index += 1 }
            return String(String.UnicodeScalarView(scalars[start..<index]))
        }

        /// A quoted-string starting at `"`, backslash escapes resolved; an unterminated one runs to the end.
        mutating func quotedString() -> String {
            var value = String.UnicodeScalarView()
            index += 1
            while let scalar = peek {
                index += 1
                if scalar == "\"" { break }
                if scalar == "\\", let escaped = peek {
                    index += 1
                    value.append(escaped)
                } else {
                    value.append(scalar)
                }
            }
            return String(value)
        }

        /// Everything up to the next ";" (consumed), with surrounding whitespace trimmed.
        mutating func untilSemicolon() -> String {
            let start = index
            while let scalar = peek, scalar != ";" { index += 1 }
            var end = index
            while end > start, scalars[end - 1] == " " || scalars[end - 1] == "\t" { end -= 1 }
            if !atEnd { index += 1 }
            return String(String.UnicodeScalarView(scalars[start..<end]))
        }

        mutating func skipPastSemicolon() {
            _ = untilSemicolon()
        }

        private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": return true
            case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
            default: return false
            }
        }
    }
}
