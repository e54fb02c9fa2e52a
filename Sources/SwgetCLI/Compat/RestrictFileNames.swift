/// wget's `--restrict-file-names=MODES`: which bytes of a name taken from a URL are escaped as
/// `%XX` before it becomes a file or directory name, and whether letters change case.
///
/// Modes, comma-combinable as wget allows (a later mode of the same kind wins, as in wget's
/// `cmd_spec_restrict_file_names`): `unix` (the default: escape `/` and NUL), `windows` (also
/// `\ | : ? " * < >`, and the port and query separators become `+` and `@`), `nocontrol` (do not
/// escape control characters), `ascii` (escape every byte above 127), `lowercase`, `uppercase`.
///
/// Escaping follows wget's `append_uri_pathel` (src/url.c) byte for byte, with two deliberate
/// differences, both only ever adding escapes:
/// - wget's documentation promises that "control characters" 0–31 and 128–159 are escaped;
///   swget reads 128–159 as the C1 control *characters* U+0080–U+009F (escaped whole, as their
///   UTF-8 bytes), and treats the bidirectional controls (U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069) and the invisible ones (zero-width U+200B–U+200D,
///   U+2060–U+2064, the BOM U+FEFF) the same way, so "evil\u{202E}txt.exe" cannot pose as
///   "evilexe.txt" and no two names differ only invisibly. `nocontrol` turns all of them off,
///   as it turns off wget's 0–31.
/// - bytes that are not valid UTF-8 are always escaped, so the result is a valid `String`.
///
/// The case change runs last over the whole escaped element, hex digits of escapes included,
/// exactly as wget's in-place `c_tolower`/`c_toupper` does (`%C3%A9` becomes `%c3%a9`).
public struct FileNameRestriction: Sendable, Equatable {
    /// Which operating system's forbidden characters are escaped.
    public enum System: Sendable, Equatable {
        /// `/` and NUL.
        case unix
        /// `\ | / : ? " * < >` and NUL.
        case windows
    }

    /// The case change applied to every name element after escaping.
    public enum LetterCase: Sendable, Equatable {
        case unchanged, lowercase, uppercase
    }

    /// A `--restrict-file-names` value that is not a list of known modes.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The offending mode, as given.
        public let mode: String
        /// wget's message, naming the mode and the choices.
        public var description: String {
            "invalid restriction '\(mode)', use [unix|windows],[lowercase|uppercase],[nocontrol],[ascii]"
        }
    }

    /// `unix` or `windows`: which forbidden characters are escaped.
    public var system: System = .unix
    /// Escape control characters (C0, DEL, C1, bidirectional controls): on unless `nocontrol`.
    public var escapesControlCharacters = true
    /// Escape every byte above 127 (`ascii`).
    public var asciiOnly = false
    /// `lowercase` or `uppercase`, applied after escaping.
    public var letterCase: LetterCase = .unchanged

    /// wget's default on Unix-like systems: `unix`, control characters escaped.
    public init() {}

    /// Parses a `--restrict-file-names` value such as `windows,lowercase` or `nocontrol`.
    /// Modes are matched ASCII-case-insensitively (wget matches them exactly; accepting
    /// `Windows` too breaks no script). A trailing comma is accepted, as in wget; an empty value
    /// or an empty mode in the middle (`unix,,ascii`) is not.
    public init(modes: String) throws(ParseError) {
        self.init()
        var parts = modes.split(separator: ",", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        for part in parts {
            switch part.lowercased() {
            case "unix": system = .unix
            case "windows": system = .windows
            case "lowercase": letterCase = .lowercase
            case "uppercase": letterCase = .uppercase
            case "nocontrol": escapesControlCharacters = false
            case "ascii": asciiOnly = true
            default: throw ParseError(mode: String(part.prefix(64)))
            }
        }
    }

    /// The separator between host and port in a host directory (`host:8080`, or `host+8080`
    /// in `windows` mode, as wget's `FN_PORT_SEP`).
    public var portSeparator: String { system == .windows ? "+" : ":" }

    /// The separator between a file name and the URL's query (`page?q=1`, or `page@q=1` in
    /// `windows` mode, as wget's `FN_QUERY_SEP`).
    public var querySeparator: String { system == .windows ? "@" : "?" }

    /// Escapes one name element given as raw (already percent-decoded) bytes, then changes its
    /// case. `..` becomes `%2E%2E` and `.` becomes `%2E`, so an element can never climb out of
    /// or stay in its directory; the result never contains `/` or NUL. An empty element stays
    /// empty (the caller decides what an empty name means).
    public func escape(element bytes: [UInt8]) -> String {
        if bytes == [0x2E] { return "%2E" }
        if bytes == [0x2E, 0x2E] { return "%2E%2E" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if isEscaped(ascii: byte) { Self.appendEscape(byte, to: &out) } else { out.append(byte) }
                index += 1
                continue
            }
            let length = Self.utf8SequenceLength(bytes, at: index)
            let sequence = bytes[index..<(index + max(length, 1))]
            if length == 0 || asciiOnly || (escapesControlCharacters && Self.isControl(sequence)) {
                for b in sequence { Self.appendEscape(b, to: &out) }
            } else {
                out.append(contentsOf: sequence)
            }
            index += max(length, 1)
        }
        switch letterCase {
        case .unchanged: break
        case .lowercase: for i in out.indices where out[i] >= 0x41 && out[i] <= 0x5A { out[i] |= 0x20 }
        case .uppercase: for i in out.indices where out[i] >= 0x61 && out[i] <= 0x7A { out[i] &= ~0x20 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes a name element given as text (its UTF-8 bytes), as `escape(element:)`.
    public func escape(_ element: String) -> String {
        escape(element: Array(element.utf8))
    }

    /// Whether an ASCII byte is escaped in this mode (wget's `filechr_table` and mask).
    func isEscaped(ascii byte: UInt8) -> Bool {
        if byte == 0 || byte == 0x2F { return true }
        if escapesControlCharacters && (byte < 0x20 || byte == 0x7F) { return true }
        if system == .windows {
            switch byte {
            case 0x5C, 0x7C, 0x3A, 0x3F, 0x22, 0x2A, 0x3C, 0x3E: return true  // \ | : ? " * < >
            default: return false
            }
        }
        return false
    }

    /// Whether a valid UTF-8 sequence encodes a C1 control, a bidirectional control or an
    /// invisible format character.
    static func isControl(_ sequence: ArraySlice<UInt8>) -> Bool {
        var scalar: UInt32 = 0
        for (offset, byte) in sequence.enumerated() {
            scalar = offset == 0 ? UInt32(byte & (0xFF >> (sequence.count + 1))) : (scalar << 6) | UInt32(byte & 0x3F)
        }
        switch scalar {
        case 0x80...0x9F, 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0 when there is none
    /// (overlong forms, surrogates and values above U+10FFFF are invalid, as in RFC 3629).
    static func utf8SequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let need: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch first {
        case 0xC2...0xDF: need = 2
        case 0xE0: need = 3; low = 0xA0
        case 0xED: need = 3; high = 0x9F
        case 0xE1...0xEF: need = 3
        case 0xF0: need = 4; low = 0x90
        case 0xF4: need = 4; high = 0x8F
        case 0xF1...0xF3: need = 4
        default: return 0
        }
        guard bytes.count - index >= need else { return 0 }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return 0 }
        for offset in 2..<need where bytes[index + offset] & 0xC0 != 0x80 { return 0 }
        return need
    }

    /// Appends `%XX` (upper-case hex, as wget's `XNUM_TO_DIGIT`).
    static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        out.append(0x25)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0F)])
    }
}
