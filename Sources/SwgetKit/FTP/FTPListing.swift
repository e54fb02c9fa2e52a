/// One entry of a directory listing, from an MLSD line (RFC 3659 §7) or a LIST line (the common
/// Unix `ls -l` and Windows/IIS formats, see `FTPListing+LIST.swift`).
///
/// Invariant: `name` is a bare name a destination may use: not empty, not "." or "..", without
/// "/" or NUL. Entries whose name breaks this are skipped by the parsers, as are the MLSD entries
/// of the directory itself and its parent (`type=cdir`, `type=pdir`).
struct FTPListEntry: Equatable, Sendable {
    /// What the entry is.
    enum Kind: Equatable, Sendable {
        case file
        case directory
        /// A symbolic link, with its target when the server told it (`name -> target` in LIST,
        /// `type=OS.unix=slink:target` in MLSD).
        case symlink(target: String?)
        /// Another type: a LIST type letter ("c", "b", "p", "s") or an MLSD type value.
        case other(String)
        /// MLSD line without a `type` fact.
        case unknown
    }

    /// The bare name (see the type's invariant).
    var name: String
    /// File, directory, link...
    var kind: Kind
    /// Bytes, when stated (`size` fact; the size column of LIST; nil for devices and `<DIR>`).
    var size: Int64?
    /// Modification time in UTC (MLSD `modify`), or the local date a LIST line shows.
    var modified: FTPTimestamp?
    /// True for LIST dates: minute precision at best, the server's time zone, and a year guessed
    /// from the current date when the line shows a time instead.
    var modifiedIsApproximate = false
    /// MLSD's `perm` fact ("adfr"), or LIST's mode string ("-rw-r--r--").
    var permissions: String?
    /// MLSD's `unique` fact.
    var unique: String?

    /// An entry from its parts (parsers and tests).
    init(name: String, kind: Kind, size: Int64? = nil, modified: FTPTimestamp? = nil, modifiedIsApproximate: Bool = false,
         permissions: String? = nil, unique: String? = nil) {
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
        self.modifiedIsApproximate = modifiedIsApproximate
        self.permissions = permissions
        self.unique = unique
    }
}

/// Which command produced a listing, and so how its lines are read.
enum FTPListingFormat: Equatable, Sendable {
    /// MLSD (RFC 3659 §7): machine-readable facts.
    case mlsd
    /// LIST (RFC 959): `ls -l` style, Unix or Windows/IIS, detected per line.
    case list
}

/// Why a listing was abandoned.
enum FTPListingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// More entries than ``FTPListingParser/Limits/maxEntries``.
    case tooManyEntries(limit: Int)
    /// The names kept add up to more than ``FTPListingParser/Limits/maxNameBytes``.
    case tooLarge(limit: Int)

    var description: String {
        switch self {
        case .tooManyEntries(let limit): "directory listing with more than \(limit) entries"
        case .tooLarge(let limit): "directory listing names larger than \(limit) bytes"
        }
    }
}

/// Reads a listing from the data connection in pieces of any size. Lines end with CRLF or LF;
/// lines that parse in no known format (`total 12`, banners, blank lines) are counted in
/// ``skippedLines`` and dropped, as are lines longer than the limit. Memory stays bounded by
/// ``Limits``: an endless line is discarded as it streams, too many entries is an error.
struct FTPListingParser: Sendable {
    /// Bounds on a listing.
    struct Limits: Sendable {
        /// Longest line read (longer ones are skipped whole).
        var maxLineLength = 4096
        /// Entries kept before the listing is refused.
        var maxEntries = 100_000
        /// Bytes of names and link targets kept before the listing is refused.
        var maxNameBytes = 16 << 20

        /// The defaults above.
        init() {}
    }

    /// How lines are read.
    let format: FTPListingFormat
    /// The current date, to place LIST dates that show a time instead of a year.
    let now: FTPTimestamp
    /// The bounds in force.
    let limits: Limits
    /// Lines dropped: unparseable, over-long, or naming "." / ".." / a path.
    private(set) var skippedLines = 0
    /// Entries returned so far.
    private(set) var entryCount = 0
    private var nameBytes = 0
    private var line: [UInt8] = []
    private var discarding = false

    /// A parser for one listing.
    init(format: FTPListingFormat, now: FTPTimestamp, limits: Limits = Limits()) {
        self.format = format
        self.now = now
        self.limits = limits
    }

    /// Reads `bytes` and returns the entries of the lines they complete.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(FTPListingError) -> [FTPListEntry] where Bytes.Element == UInt8 {
        var entries: [FTPListEntry] = []
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else if let entry = try take() {
                    entries.append(entry)
                }
                line.removeAll(keepingCapacity: true)
            } else if !discarding {
                if line.count > limits.maxLineLength {
                    discarding = true
                    skippedLines += 1
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(byte)
                }
            }
        }
        return entries
    }

    /// The listing ended: returns the entry of a last line without a line end, if any.
    mutating func finish() throws(FTPListingError) -> [FTPListEntry] {
        defer { line = [] }
        guard !discarding, !line.isEmpty, let entry = try take() else { return [] }
        return [entry]
    }

    private mutating func take() throws(FTPListingError) -> FTPListEntry? {
        if line.last == 0x0D { line.removeLast() }
        guard !line.isEmpty else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let parsed = switch format {
        case .mlsd: FTPListing.parseFacts(text)
        case .list: FTPListing.parseLIST(text, now: now)
        }
        guard let entry = parsed else {
            skippedLines += 1
            return nil
        }
        guard entryCount < limits.maxEntries else { throw .tooManyEntries(limit: limits.maxEntries) }
        var size = entry.name.utf8.count
        if case .symlink(let target?) = entry.kind { size += target.utf8.count }
        guard nameBytes + size <= limits.maxNameBytes else { throw .tooLarge(limit: limits.maxNameBytes) }
        entryCount += 1
        nameBytes += size
        return entry
    }
}

/// Listing line parsers as pure functions.
enum FTPListing {
    /// Parses a whole listing at once (see ``FTPListingParser`` for the rules).
    static func parse(_ bytes: [UInt8], format: FTPListingFormat, now: FTPTimestamp,
                      limits: FTPListingParser.Limits = .init()) throws(FTPListingError) -> [FTPListEntry] {
        var parser = FTPListingParser(format: format, now: now, limits: limits)
        return try parser.feed(bytes) + parser.finish()
    }

    /// Parses an MLSD line (RFC 3659 §7.2): `fact=value;fact=value; name`. The facts end at the
    /// first space; everything after it is the name, spaces and semicolons included. Fact names
    /// and `type` values are case-insensitive; unknown facts are ignored. nil for the directory
    /// itself and its parent, a bad name, or a line without the space.
    static func parseFacts(_ line: String) -> FTPListEntry? {
        guard let (facts, name) = splitFacts(line), isBareName(name) else { return nil }
        return entry(named: name, facts: facts)
    }

    /// Parses the entry line of an MLST reply (RFC 3659 §7.2, the line that starts with a
    /// space): as ``parseFacts(_:)``, except that the pathname may be a path. The entry's name
    /// is the path as sent; nil when the line holds no facts.
    static func parseMLSTEntry(_ line: String) -> FTPListEntry? {
        let trimmed = line.first == " " ? String(line.dropFirst()) : line
        guard let (facts, path) = splitFacts(trimmed), !facts.isEmpty, !path.isEmpty, !path.containsByte(0) else { return nil }
        return entry(named: path, facts: facts, directoryMarkers: true)
    }

    /// A name a listing entry may carry (the ``FTPListEntry`` invariant).
    static func isBareName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.containsByte(0x2F) && !name.containsByte(0)
    }

    /// The facts (lower-cased names, values as sent) and the pathname of a fact line.
    private static func splitFacts(_ line: String) -> ([(name: String, value: String)], String)? {
        guard let space = line.firstIndex(of: " ") else { return nil }
        var facts: [(name: String, value: String)] = []
        for fact in line[..<space].split(separator: ";") {
            guard let equals = fact.firstIndex(of: "="), equals != fact.startIndex else { continue }
            facts.append((fact[..<equals].lowercased(), String(fact[fact.index(after: equals)...])))
        }
        return (facts, String(line[line.index(after: space)...]))
    }

    /// `directoryMarkers`: read `cdir`/`pdir` as directories (MLST of a directory) instead of
    /// dropping the entry (MLSD's own and parent directory).
    private static func entry(named name: String, facts: [(name: String, value: String)], directoryMarkers: Bool = false) -> FTPListEntry? {
        var entry = FTPListEntry(name: name, kind: .unknown)
        for fact in facts {
            switch fact.name {
            case "type":
                let value = fact.value.lowercased()
                switch value {
                case "file": entry.kind = .file
                case "dir": entry.kind = .directory
                case "cdir", "pdir":
                    guard directoryMarkers else { return nil }
                    entry.kind = .directory
                case "os.unix=symlink": entry.kind = .symlink(target: nil)
                default:
                    if value.hasPrefix("os.unix=slink:") {
                        let target = String(fact.value.dropFirst("os.unix=slink:".count))
                        entry.kind = .symlink(target: target.isEmpty ? nil : target)
                    } else {
                        entry.kind = .other(fact.value)
                    }
                }
            case "size": entry.size = decimal(fact.value)
            case "modify": entry.modified = FTPTimestamp(timeVal: fact.value)
            case "perm": entry.permissions = fact.value
            case "unique": entry.unique = fact.value
            default: break
            }
        }
        return entry
    }

    /// A non-negative decimal of at most 18 digits (no sign, no spaces), or nil.
    static func decimal(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
