#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// GNU wget's HSTS database format (`~/.wget-hsts`, wget's `src/hsts.c`), which swget reads and
/// writes so that both tools can share one file.
///
/// The format: UTF-8/ASCII text, one Known HSTS Host per line, five fields separated by spaces
/// or tabs (swget writes tabs):
/// ```
/// # HSTS 1.0 Known Hosts database for GNU Wget.
/// # <hostname>	<port>	<incl. subdomains>	<created>	<max-age>
/// example.com	0	1	1700000000	31536000
/// ```
/// - `hostname`: the host, lowercase ASCII (never an IP address);
/// - `port`: the port the policy was received on, 0 meaning the default (443);
/// - `incl. subdomains`: 1 or 0;
/// - `created`: when the policy was received, seconds since 1970-01-01 UTC;
/// - `max-age`: its lifetime in seconds; the entry is valid while `created + max-age >= now`.
///
/// Lines whose first non-blank character is `#` are comments; blank lines are skipped. A line
/// that does not have exactly these five well-formed fields is skipped with a ``Warning``
/// naming its line number (wget skips such lines silently). `max-age` values above
/// ``StrictTransportSecurity/maximumMaxAge`` are clamped.
///
/// Like wget, swget uses the file only when it is a regular file that is not world-writable
/// (anyone could otherwise add or strip hosts). Writes are atomic: a temporary file in the same
/// directory, `fsync`, mode 0600, then `rename` over the old file.
public enum HSTSFile {
    /// A skipped line.
    public struct Warning: Sendable, Equatable, CustomStringConvertible {
        /// 1-based line number.
        public let line: Int
        /// Why it was skipped.
        public let reason: String

        /// "line N: reason".
        public var description: String { "line \(line): \(reason)" }
    }

    /// What a file holds: its valid entries in file order, and its skipped lines.
    public struct Contents: Sendable, Equatable {
        /// The valid lines, in file order.
        public var entries: [HSTSStore.Entry] = []
        /// At most ``HSTSFile/maximumWarnings`` warnings.
        public var warnings: [Warning] = []
        /// Skipped lines beyond the warnings kept.
        public var suppressedWarnings = 0
    }

    /// Larger files are refused.
    public static let maximumFileSize = 8 << 20
    /// Longer lines are skipped.
    public static let maximumLineLength = 1024
    /// At most this many warnings are kept per file.
    public static let maximumWarnings = 100
    /// At most this many entries are written (the latest-expiring ones).
    public static let maximumEntries = 100_000

    /// The first comment lines of a written file (wget writes the same three).
    static let preamble = """
        # HSTS 1.0 Known Hosts database for GNU Wget.
        # Edit at your own risk.
        # <hostname>\t<port>\t<incl. subdomains>\t<created>\t<max-age>

        """

    /// Parses a file's bytes (pure).
    public static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        var lineNumber = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
            guard let first = fields.first, first.first != UInt8(ascii: "#") else { continue }
            let outcome: Result<HSTSStore.Entry, LineError>
            if line.count > maximumLineLength {
                outcome = .failure(LineError(reason: "line longer than \(maximumLineLength) bytes"))
            } else {
                outcome = entry(fields)
            }
            switch outcome {
            case .success(let entry):
                contents.entries.append(entry)
            case .failure(let error):
                if contents.warnings.count < maximumWarnings {
                    contents.warnings.append(Warning(line: lineNumber, reason: error.reason))
                } else {
                    contents.suppressedWarnings += 1
                }
            }
        }
        return contents
    }

    private struct LineError: Error { let reason: String }

    private static func entry(_ fields: [ArraySlice<UInt8>]) -> Result<HSTSStore.Entry, LineError> {
        guard fields.count == 5 else { return .failure(LineError(reason: "expected 5 fields, found \(fields.count)")) }
        let hostText = String(decoding: fields[0], as: UTF8.self)
        guard let host = HSTSHostName.normalized(hostText), !HSTSHostName.isIPAddress(host) else {
            return .failure(LineError(reason: "invalid host name"))
        }
        guard let port = number(fields[1], maxDigits: 5), port <= 65535 else { return .failure(LineError(reason: "invalid port")) }
        guard fields[2].count == 1, let flag = fields[2].first, flag == UInt8(ascii: "0") || flag == UInt8(ascii: "1") else {
            return .failure(LineError(reason: "include-subdomains must be 0 or 1"))
        }
        guard let created = number(fields[3], maxDigits: 15) else { return .failure(LineError(reason: "invalid creation time")) }
        guard let maxAge = number(fields[4], maxDigits: 18) else { return .failure(LineError(reason: "invalid max-age")) }
        return .success(HSTSStore.Entry(host: host, port: Int(port), includeSubDomains: flag == UInt8(ascii: "1"),
                                        created: created, maxAge: min(maxAge, StrictTransportSecurity.maximumMaxAge)))
    }

    /// Decimal digits only, at most `maxDigits` of them.
    private static func number(_ field: ArraySlice<UInt8>, maxDigits: Int) -> Int64? {
        guard !field.isEmpty, field.count <= maxDigits, field.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return field.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// The file text for `entries` (pure): the preamble, then one line per entry sorted by host,
    /// at most ``maximumEntries`` (the latest-expiring ones).
    public static func serialize(_ entries: [HSTSStore.Entry]) -> String {
        var chosen = entries
        if chosen.count > maximumEntries {
            chosen = Array(chosen.sorted { ($0.expires, $1.host) > ($1.expires, $0.host) }.prefix(maximumEntries))
        }
        var text = preamble
        for entry in chosen.sorted(by: { ($0.host, $0.port) < ($1.host, $1.port) }) {
            text += "\(entry.host)\t\(entry.port)\t\(entry.includeSubDomains ? 1 : 0)\t\(max(0, entry.created))\t\(max(0, entry.maxAge))\n"
        }
        return text
    }

    /// Reads and parses `path`. A missing file is empty, not an error. Throws when the file is
    /// not a regular file, is world-writable, is larger than ``maximumFileSize`` or cannot be read.
    public static func read(path: String) throws(HSTSFileError) -> Contents {
        // O_NONBLOCK: opening a FIFO must not hang; regular files ignore it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return Contents() }
            throw HSTSFileError(.unreadable, path: path, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HSTSFileError(.unreadable, path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw HSTSFileError(.unsafe, path: path, reason: "not a regular file") }
        guard info.st_mode & S_IWOTH == 0 else { throw HSTSFileError(.unsafe, path: path, reason: "world-writable") }
        guard info.st_size <= maximumFileSize else {
            throw HSTSFileError(.tooLarge, path: path, reason: "larger than \(maximumFileSize) bytes")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw HSTSFileError(.unreadable, path: path, errno: errno)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= maximumFileSize else {
                throw HSTSFileError(.tooLarge, path: path, reason: "larger than \(maximumFileSize) bytes")
            }
        }
        return parse(bytes)
    }

    /// Writes `entries` to `path` atomically with mode 0600, creating missing parent
    /// directories (mode 0700) when `createDirectories` is true.
    public static func write(_ entries: [HSTSStore.Entry], to path: String, createDirectories: Bool = true) throws(HSTSFileError) {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw HSTSFileError(.unwritable, path: path, reason: "not a file name") }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        if createDirectories { try makeDirectories(directory, for: path) }
        var template = Array("\(directory)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw HSTSFileError(.unwritable, path: path, errno: errno) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: HSTSFileError?
        let bytes = Array(serialize(entries).utf8)
        var written = 0
        while written < bytes.count, failure == nil {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno != EINTR { failure = HSTSFileError(.unwritable, path: path, errno: errno) }
            } else {
                written += count
            }
        }
        if failure == nil, fchmod(fd, 0o600) != 0 || fsync(fd) != 0 { failure = HSTSFileError(.unwritable, path: path, errno: errno) }
        if close(fd) != 0, failure == nil { failure = HSTSFileError(.unwritable, path: path, errno: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = HSTSFileError(.unwritable, path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func makeDirectories(_ directory: String, for path: String) throws(HSTSFileError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST { throw HSTSFileError(.unwritable, path: path, errno: errno) }
        }
    }
}

extension HSTSStore {
    /// Loads wget's HSTS database at `path` into the store (a missing file adds nothing) and
    /// returns the skipped lines. See ``HSTSFile`` and ``load(_:now:)``.
    @discardableResult
    public func load(contentsOf path: String, now: Date? = nil) throws(HSTSFileError) -> [HSTSFile.Warning] {
        let contents = try HSTSFile.read(path: path)
        load(contents.entries, now: now)
        return contents.warnings
    }

    /// Writes the entries not expired at `now` to `path` atomically (``HSTSFile/write(_:to:createDirectories:)``)
    /// and marks the store saved. The file is replaced: changes another process made since it
    /// was loaded are lost (the last writer wins).
    public func save(to path: String, now: Date? = nil) throws(HSTSFileError) {
        try HSTSFile.write(entries(now: now), to: path)
        markSaved()
    }
}

/// Reading or writing an HSTS database failed.
public struct HSTSFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file exists but cannot be opened or read.
        case unreadable
        /// Not a regular file, or world-writable: HSTS must not use it (as wget refuses it).
        case unsafe
        /// Larger than ``HSTSFile/maximumFileSize``.
        case tooLarge
        /// The file or its temporary file cannot be written or renamed.
        case unwritable
    }

    /// What went wrong.
    public let kind: Kind
    /// The database file.
    public let path: String
    /// The cause (an errno text or a rule), one line.
    public let reason: String

    init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    init(_ kind: Kind, path: String, errno code: Int32) {
        self.init(kind, path: path, reason: String(cString: strerror(code)))
    }

    /// One line naming the file.
    public var description: String {
        switch kind {
        case .unreadable: "cannot read HSTS database '\(path)': \(reason)"
        case .unsafe: "will not use HSTS database '\(path)': \(reason)"
        case .tooLarge: "HSTS database '\(path)' is too large: \(reason)"
        case .unwritable: "cannot write HSTS database '\(path)': \(reason)"
        }
    }
}
