/// Why a `.netrc` file cannot be used.
public struct NetrcError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// `machine`, `login`, `password`, `account` or `macdef` at the end of the file.
        case missingValue(keyword: String)
        /// A quoted token without its closing quote before the end of the line.
        case unterminatedQuote
        /// `login`, `password` or `account` before any `machine` or `default`.
        case outsideEntry(keyword: String)
        /// The file is larger than ``Netrc/maximumBytes``.
        case tooLarge
    }

    /// What is wrong.
    public let kind: Kind
    /// The 1-based line where it is wrong (0 for ``Kind/tooLarge``).
    public let line: Int

    /// An error of `kind` at `line`.
    public init(_ kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    /// One line, for the user (the caller adds the file's path).
    public var description: String {
        switch kind {
        case .missingValue(let keyword): "line \(line): '\(keyword)' without a value"
        case .unterminatedQuote: "line \(line): unterminated quoted token"
        case .outsideEntry(let keyword): "line \(line): '\(keyword)' before any 'machine' or 'default'"
        case .tooLarge: "the file is larger than \(Netrc.maximumBytes) bytes"
        }
    }
}

/// A `.netrc` file, parsed as curl (≥ 7.84) and GNU inetutils read it. Pure: it takes the text.
///
/// - Tokens are separated by any white space, newlines included. A token starting with `"` is
///   quoted: it ends at the next unescaped `"` on the same line, and `\n`, `\r`, `\t` stand for
///   newline, carriage return and tab, `\` before any other character for that character.
/// - `machine NAME`, `default` start an entry; `login`, `password`, `account` take the next token
///   as their value (whatever it is, as curl and inetutils do); a repeated one replaces the value.
/// - `macdef NAME` is followed by a macro body (for ftp), skipped up to the first blank line
///   (empty or white space only).
/// - A line whose first non-blank character is `#` is a comment, and so is the rest of a line
///   from a token starting with `#` where a keyword is expected (wget's reading). A `#` inside a
///   value is part of it.
/// - An unknown keyword is skipped and reported in ``warnings`` (curl ignores it, inetutils warns).
/// - Host names are compared without regard to ASCII case; logins and passwords exactly.
public struct Netrc: Sendable, Hashable {
    /// The largest file accepted: 1 MiB.
    public static let maximumBytes = 1 << 20

    /// One `machine` or `default` entry.
    public struct Entry: Sendable, Hashable {
        /// The host name; nil for `default`.
        public var machine: String?
        /// The `login` value.
        public var login: String?
        /// The `password` value.
        public var password: String?
        /// The `account` value (ftp's ACCT).
        public var account: String?

        /// An entry for `machine` (nil: `default`).
        public init(machine: String?, login: String? = nil, password: String? = nil, account: String? = nil) {
            self.machine = machine
            self.login = login
            self.password = password
            self.account = account
        }
    }

    /// A note about the file that does not stop its use.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        /// The 1-based line.
        public let line: Int
        /// What was skipped.
        public let message: String
        /// "line N: message".
        public var description: String { "line \(line): \(message)" }
    }

    /// The entries in file order.
    public let entries: [Entry]
    /// Unknown keywords skipped, at most 100.
    public let warnings: [Warning]

    /// Parses `text` (the file's content). Throws ``NetrcError`` with the line of the fault.
    public init(parsing text: String) throws(NetrcError) {
        guard text.utf8.count <= Self.maximumBytes else { throw NetrcError(.tooLarge, line: 0) }
        var lexer = NetrcLexer(bytes: Array(text.utf8))
        var entries: [Entry] = []
        var warnings: [Warning] = []
        while let keyword = try lexer.next(expectingKeyword: true) {
            let value: () throws(NetrcError) -> String = { () throws(NetrcError) -> String in
                guard let token = try lexer.next(expectingKeyword: false) else {
                    throw NetrcError(.missingValue(keyword: keyword.text), line: keyword.line)
                }
                return token.text
            }
            switch keyword.text {
            case "machine":
                entries.append(Entry(machine: try value()))
            case "default":
                entries.append(Entry(machine: nil))
            case "login", "password", "account":
                guard !entries.isEmpty else { throw NetrcError(.outsideEntry(keyword: keyword.text), line: keyword.line) }
                let text = try value()
                let last = entries.count - 1
                switch keyword.text {
                case "login": entries[last].login = text
                case "password": entries[last].password = text
                default: entries[last].account = text
                }
            case "macdef":
                _ = try value()
                lexer.skipMacroBody()
            default:
                if warnings.count < 100 {
                    warnings.append(Warning(line: keyword.line, message: "unknown keyword '\(keyword.text.prefix(64))' skipped"))
                }
            }
        }
        self.entries = entries
        self.warnings = warnings
    }

    /// The entry to use for `host` (and, when given, the user `login`):
    /// 1. the first `machine` entry for `host` whose login is `login` (or any login when `login`
    ///    is nil), or, when `login` is given, has no login (its password goes with `login`);
    /// 2. otherwise the `default` entry, only when no `machine` entry names `host` at all, and
    ///    with the same login rule.
    /// The returned entry's `login` is filled with `login` when the file gave none.
    public func lookup(host: String, login: String? = nil) -> Entry? {
        let machines = entries.filter { $0.machine.map { $0.caseInsensitiveEquals(host) } ?? false }
        let candidates = machines.isEmpty ? entries.filter { $0.machine == nil } : machines
        let matches: (Entry) -> Bool = { entry in login == nil || entry.login == nil || entry.login == login }
        let exact = candidates.first { login != nil && $0.login == login }
        guard var found = exact ?? candidates.first(where: matches) else { return nil }
        if found.login == nil { found.login = login }
        return found
    }

    /// True when a file with this `st_mode` can be read, written or run by its group or by others
    /// (`mode & 0o077`, the check of inetutils' ftp): the command warns, as the file holds passwords.
    public static func isExposed(mode: UInt32) -> Bool { mode & 0o077 != 0 }
}

/// The tokenizer of ``Netrc``: tokens with their line, quoting and comments.
struct NetrcLexer {
    /// A token and the line it starts on.
    struct Token {
        let text: String
        let line: Int
    }

    /// The file's bytes.
    let bytes: [UInt8]
    /// The next byte to read.
    var index = 0
    /// The 1-based line of `index`.
    var line = 1
    /// True when only blanks were read since the last newline (for `#` comment lines).
    var atLineStart = true

    /// White space between tokens.
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C }

    /// The next token, or nil at the end. Where a keyword is expected, a token starting with `#`
    /// starts a comment that runs to the end of the line.
    mutating func next(expectingKeyword: Bool) throws(NetrcError) -> Token? {
        while index < bytes.count {
            let c = bytes[index]
            if c == 0x0A {
                line += 1
                atLineStart = true
                index += 1
            } else if Self.isSpace(c) {
                index += 1
            } else if c == UInt8(ascii: "#"), atLineStart || expectingKeyword {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else {
                atLineStart = false
                return c == UInt8(ascii: "\"") ? try quoted() : unquoted()
            }
        }
        return nil
    }

    private mutating func unquoted() -> Token {
        let start = index
        while index < bytes.count, !Self.isSpace(bytes[index]) { index += 1 }
        return Token(text: String(decoding: bytes[start..<index], as: UTF8.self), line: line)
    }

    private mutating func quoted() throws(NetrcError) -> Token {
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return Token(text: String(decoding: out, as: UTF8.self), line: line)
            case 0x0A:
                throw NetrcError(.unterminatedQuote, line: line)
            case UInt8(ascii: "\\"):
                guard index < bytes.count, bytes[index] != 0x0A else { throw NetrcError(.unterminatedQuote, line: line) }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                default: out.append(escaped)
                }
            default:
                out.append(c)
            }
        }
        throw NetrcError(.unterminatedQuote, line: line)
    }

    /// Skips a `macdef` body: the rest of the current line, then lines up to and including the
    /// first blank one (or the end of the file).
    mutating func skipMacroBody() {
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        while index < bytes.count {
            index += 1   // the newline ending the previous line
            line += 1
            let start = index
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            if bytes[start..<index].allSatisfy(Self.isSpace) { break }
        }
        atLineStart = false
    }
}
