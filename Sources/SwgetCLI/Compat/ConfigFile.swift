/// The configuration file and wget's `-e COMMAND`: lines `key = value` turned into command-line
/// tokens that go *before* the command line's own arguments, so the command line wins.
///
/// Where: `$XDG_CONFIG_HOME/swget/config` (`~/.config/swget/config` when XDG_CONFIG_HOME is
/// unset or not absolute), else `~/.swgetrc`. Only the first of these that exists is read: the
/// XDG file wins and `~/.swgetrc` is then ignored (`defaultPaths(environment:)`).
///
/// Syntax (wget's `.wgetrc`, wget manual "Wgetrc Syntax"):
/// - one setting per line; blank lines and lines whose first non-blank character is `#` are
///   ignored (a `#` later in a line is part of the value, as in wget: `header = X-Tag: #1`);
/// - `key = value`; keys are long option names, case-insensitive, with `-` and `_` ignored
///   (wget: `DIr__PrefiX`, `dir-prefix` and `dirprefix` are the same), plus a few wgetrc
///   names of wget's (`use_proxy`, `check_certificate`, `robots`, ...: `ConfigFile.aliases`);
/// - a value may be quoted: `"..."` (with `\"`, `\\` and `\t`) or `'...'` (literal);
///   otherwise it is the rest of the line without surrounding blanks;
/// - a flag takes a boolean, `on/off/yes/no/true/false/1/0` (any case), or stands alone
///   (`insecure`, meaning on); `off` of a flag `--x` gives `--no-x` when that exists, and
///   `x = off` for a key whose option is only `--no-x` (`check_certificate = off`) gives
///   `--no-x`. Turning a flag to its default gives no token.
///
/// Errors are `FILE:LINE: reason` (`-e 'COMMAND': reason` for `-e`); the command exits 2.
/// Input is bounded (`maxBytes`, `maxLineBytes`); values may not hold control characters (a
/// header value could otherwise smuggle a line break).
public enum ConfigFile {
    /// One long option of the command, as ArgumentParser declares it.
    public struct Option: Sendable, Equatable {
        /// The long name without dashes: `tries`, `no-check-certificate`.
        public var name: String
        /// True for an `@Option` (it needs a value), false for a `@Flag`.
        public var takesValue: Bool
        /// Its one-letter name, if any (`t` for `--tries`): only `invocation(of:options:)`
        /// reads it, to skip the values of short options.
        public var shortName: Character?
        /// An option named `name` (without its leading `--`).
        public init(_ name: String, takesValue: Bool, shortName: Character? = nil) {
            self.name = name
            self.takesValue = takesValue
            self.shortName = shortName
        }
    }

    /// The command's long options, looked up by configuration keys: first by exact name
    /// (lower case, `_` as `-`), then with every `-` and `_` removed, as wget compares.
    public struct OptionTable: Sendable {
        var exact: [String: Option] = [:]
        var loose: [String: Option] = [:]
        var shortTakingValue: Set<Character> = []

        /// The table of `options`; when two names collide, the first declared wins.
        public init(_ options: [Option]) {
            for option in options {
                if option.takesValue, let short = option.shortName { shortTakingValue.insert(short) }
                let name = option.name.lowercased()
                if exact[name] == nil { exact[name] = option }
                let key = ConfigFile.normalized(name)
                if loose[key] == nil { loose[key] = option }
            }
        }

        /// The option a key names, if any.
        func option(forKey key: String) -> Option? {
            let name = String(key.lowercased().map { $0 == "_" ? "-" : $0 })
            return exact[name] ?? loose[ConfigFile.normalized(key)]
        }

        /// The flag whose name is exactly `key` (lower case, `_` as `-`).
        func exactFlag(_ key: String) -> Option? {
            let name = String(key.lowercased().map { $0 == "_" ? "-" : $0 })
            guard let option = exact[name], !option.takesValue else { return nil }
            return option
        }

        /// The flag (not a value option) a key names, if any.
        func flag(_ name: String) -> Option? {
            guard let option = option(forKey: name), !option.takesValue else { return nil }
            return option
        }
    }

    /// A line that cannot be used.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file's path, or `-e 'COMMAND'`.
        public let source: String
        /// The line number from 1; nil for the whole file or for `-e`.
        public let line: Int?
        /// What is wrong, in one line.
        public let reason: String
        /// `FILE:LINE: reason`, or `SOURCE: reason` without a line.
        public var description: String {
            if let line { return "\(source):\(line): \(reason)" }
            return "\(source): \(reason)"
        }
    }

    /// The largest configuration file read, and the longest line.
    public static let maxBytes = 1 << 20
    public static let maxLineBytes = 64 * 1024

    /// Keys that would make the file name another file or run commands: never settable here.
    static let forbiddenKeys: Set<String> = ["config", "noconfig", "execute"]

    /// The configuration files to look for, in order; the first that exists is read and the
    /// others are ignored. Relative or empty `XDG_CONFIG_HOME` and `HOME` are ignored (XDG Base
    /// Directory: "all paths set in these environment variables must be absolute").
    public static func defaultPaths(environment: [String: String]) -> [String] {
        var paths: [String] = []
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            paths.append(xdg + "/swget/config")
        } else if let home {
            paths.append(home + "/.config/swget/config")
        }
        if let home { paths.append(home + "/.swgetrc") }
        return paths
    }

    /// The tokens for a whole file's `text`; `source` names it in errors.
    public static func arguments(parsing text: String, source: String, options: OptionTable) throws(ParseError) -> [String] {
        guard text.utf8.count <= maxBytes else {
            throw ParseError(source: source, line: nil, reason: "larger than \(maxBytes / 1024) KiB")
        }
        var tokens: [String] = []
        let bytes = Array(text.utf8)
        var start = 0
        var number = 0
        // Split on the byte: "\r\n" is one Character, and a line feed always ends a scalar.
        while start <= bytes.count {
            var end = start
            var first: UInt8?  // the first non-blank byte: none for a blank line, # for a comment
            while end < bytes.count, bytes[end] != 0x0A {
                if first == nil, bytes[end] != 0x20 && bytes[end] != 0x09 && bytes[end] != 0x0D { first = bytes[end] }
                end += 1
            }
            number += 1
            defer { start = end + 1 }
            guard let first, first != 0x23 else { continue }
            var lineEnd = end
            if bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            do {
                tokens += try arguments(line: String(decoding: bytes[start..<lineEnd], as: UTF8.self), options: options)
            } catch {
                throw ParseError(source: source, line: number, reason: error.reason)
            }
        }
        return tokens
    }

    /// The tokens for wget's `-e COMMAND` (one line of the same syntax).
    public static func arguments(executing command: String, options: OptionTable) throws(ParseError) -> [String] {
        let shown = String(command.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        guard !command.unicodeScalars.contains("\n") else {
            throw ParseError(source: "-e '\(shown)'", line: nil, reason: "a command is one line")
        }
        do {
            return try arguments(line: command, options: options)
        } catch {
            throw ParseError(source: "-e '\(shown)'", line: nil, reason: error.reason)
        }
    }

    /// Why one line is refused; `ParseError` adds where it is.
    struct LineError: Error {
        let reason: String
    }

    /// The tokens for one line (nothing for a blank line or a comment).
    static func arguments(line: String, options: OptionTable) throws(LineError) -> [String] {
        guard line.utf8.count <= maxLineBytes else { throw LineError(reason: "line longer than \(maxLineBytes) bytes") }
        let trimmed = line.trimmingBlanks
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return [] }
        let key: String
        let value: String?
        if let equals = trimmed.firstIndex(of: "=") {
            key = trimmed[..<equals].trimmingBlanks
            value = try unquoted(trimmed[trimmed.index(after: equals)...].trimmingBlanks)
        } else {
            key = trimmed
            value = nil
        }
        var name = Substring(key)
        while name.hasPrefix("-") { name = name.dropFirst() }
        guard !name.isEmpty, name.utf8.count <= 100,
              name.unicodeScalars.allSatisfy({ isKeyScalar($0) })
        else { throw LineError(reason: "expected 'name = value', got '\(printable(key))'") }
        if let value, value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            throw LineError(reason: "control character in the value of '\(name)'")
        }
        return try resolve(key: String(name), value: value, options: options)
    }

    /// Turns a key and its value into tokens.
    static func resolve(key: String, value: String?, options: OptionTable) throws(LineError) -> [String] {
        let normal = normalized(key)
        if forbiddenKeys.contains(normal) { throw LineError(reason: "'\(key)' cannot be set here") }
        // A flag named exactly by the key wins over a value alias when the value is a boolean:
        // `no-proxy = on` is `--no-proxy`, while wget's `no_proxy = localhost` is a host list.
        let exactFlag = options.exactFlag(key) != nil && (value == nil || (try? boolean(value, key: key)) != nil)
        if let alias = aliases[normal], !(exactFlag && alias.takesValue),
           let tokens = try resolve(alias, key: key, value: value, options: options) {
            return tokens
        }
        if let option = options.option(forKey: key) {
            if option.takesValue {
                guard let value else { throw LineError(reason: "'\(key)' needs a value ('\(key) = VALUE')") }
                return valueTokens(option.name, value)
            }
            let enabled = try boolean(value, key: key)
            if enabled { return ["--\(option.name)"] }
            let name = option.name.lowercased()
            if name.hasPrefix("no-"), let positive = options.flag(String(name.dropFirst(3))) { return ["--\(positive.name)"] }
            if let negative = options.flag("no-" + name) { return ["--\(negative.name)"] }
            return []
        }
        // `check_certificate = off` when only `--no-check-certificate` exists.
        if let negative = options.flag("no-" + key) {
            return try boolean(value, key: key) ? [] : ["--\(negative.name)"]
        }
        throw LineError(reason: "unknown option '\(printable(key))'")
    }

    /// The tokens for a wgetrc alias, or nil when none of its options exists (or a value
    /// alias has no value): the key is then looked up as usual.
    static func resolve(_ alias: Alias, key: String, value: String?, options: OptionTable) throws(LineError) -> [String]? {
        switch alias {
        case .ignored:
            return []
        case .value(let candidates):
            let option = candidates.lazy.compactMap { options.option(forKey: $0) }.first { $0.takesValue }
            guard let value, let option else { return nil }
            return valueTokens(option.name, value)
        case .boolean(let on, let off):
            guard (on + off).contains(where: { options.flag($0) != nil }) else { return nil }
            let enabled = try boolean(value, key: key)
            return (enabled ? on : off).lazy.compactMap { options.flag($0) }.first.map { ["--\($0.name)"] } ?? []
        }
    }

    /// `--name=value` in one token, so a value starting with `-` is not read as an option;
    /// an empty value as two tokens (`--name`, `""`), since ArgumentParser reads `--name=` as
    /// "value in the next argument" and would swallow the command line's first URL.
    static func valueTokens(_ name: String, _ value: String) -> [String] {
        value.isEmpty ? ["--\(name)", ""] : ["--\(name)=\(value)"]
    }

    /// A boolean value; a flag alone (no `=`) means on.
    static func boolean(_ value: String?, key: String) throws(LineError) -> Bool {
        guard let value else { return true }
        switch value.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw LineError(reason: "'\(key)' takes on or off, not '\(printable(value))'")
        }
    }

    /// A value without its optional quotes. `"..."` understands `\"`, `\\` and `\t` (any other
    /// backslash stays, so `"C:\dir"` works); `'...'` is literal. Nothing may follow the quote.
    static func unquoted(_ raw: String) throws(LineError) -> String {
        guard let quote = raw.first, quote == "\"" || quote == "'" else { return raw }
        var result = ""
        var iterator = raw.dropFirst().makeIterator()
        while let character = iterator.next() {
            if character == quote {
                let rest = String(IteratorSequence(iterator))
                guard rest.trimmingBlanks.isEmpty else { throw LineError(reason: "text after the closing quote") }
                return result
            }
            if character == "\\", quote == "\"" {
                guard let escaped = iterator.next() else { break }
                switch escaped {
                case "\"", "\\": result.append(escaped)
                case "t": result.append("\t")
                default: result.append(character); result.append(escaped)
                }
            } else {
                result.append(character)
            }
        }
        throw LineError(reason: "missing closing quote")
    }

    /// Letters, digits, `-` and `_` (ASCII).
    static func isKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
    }

    /// A key as wget compares it: lower case, without `-` and `_`.
    static func normalized(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "-" && $0 != "_" })
    }

    /// Text fit for an error line: control characters shown as `?`, cut to 80 characters.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingBlanks: String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isBlank($0) }), let end = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[start...end])
    }
}
