/// wget-style globbing of an FTP URL's last path component (`ftp://host/pub/*.iso`): the
/// pattern is matched against the names of a listing of the directory, with `fnmatch(3)`'s rules
/// and no flags, as wget does:
///
/// - `*` any run of characters (a leading "." included: wget passes no `FNM_PERIOD`),
/// - `?` any one character,
/// - `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character in (or not in) the set; a `]` right after
///   the opening (or the negation) is a member; a `[` without a closing `]` is a literal,
/// - `\c` the character c itself.
///
/// Characters are Unicode scalars. POSIX classes (`[:alpha:]`) are not supported (read as the
/// characters they contain). Matching takes at most pattern × name steps (the two-pointer
/// algorithm with one backtrack point), never exponential time; patterns longer than
/// ``maxPatternLength`` scalars are refused, names longer than ``maxNameLength`` never match.
struct FTPGlob: Sendable, Equatable {
    /// Longest pattern accepted, in Unicode scalars.
    static let maxPatternLength = 1024
    /// Longest name matched, in Unicode scalars.
    static let maxNameLength = 4096

    private enum Element: Equatable, Sendable {
        case scalar(Unicode.Scalar)
        case anyOne
        case anyRun
        case set(ranges: [ClosedRange<UInt32>], negated: Bool)
    }

    /// The pattern as given.
    let pattern: String
    /// Compare ASCII letters without regard to case (wget's `--ignore-case`).
    let ignoresCase: Bool
    private let elements: [Element]

    /// Compiles `pattern`; nil when it is longer than ``maxPatternLength``.
    init?(_ pattern: String, ignoresCase: Bool = false) {
        let scalars = Array(pattern.unicodeScalars)
        guard scalars.count <= Self.maxPatternLength else { return nil }
        self.pattern = pattern
        self.ignoresCase = ignoresCase
        var elements: [Element] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "*":
                if elements.last != .anyRun { elements.append(.anyRun) }
                i += 1
            case "?":
                elements.append(.anyOne)
                i += 1
            case "\\" where i + 1 < scalars.count:
                elements.append(.scalar(scalars[i + 1]))
                i += 2
            case "[":
                if let (set, next) = Self.bracket(scalars, from: i) {
                    elements.append(set)
                    i = next
                } else {
                    elements.append(.scalar("["))
                    i += 1
                }
            default:
                elements.append(.scalar(c))
                i += 1
            }
        }
        self.elements = elements
    }

    /// Parses the bracket expression opening at `start`; nil when it never closes.
    private static func bracket(_ s: [Unicode.Scalar], from start: Int) -> (Element, Int)? {
        var i = start + 1
        var negated = false
        if i < s.count, s[i] == "!" || s[i] == "^" {
            negated = true
            i += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while i < s.count {
            var c = s[i]
            if c == "]" && !first { return (.set(ranges: ranges, negated: negated), i + 1) }
            first = false
            if c == "\\", i + 1 < s.count {
                i += 1
                c = s[i]
            }
            i += 1
            // A range "a-z", unless the "-" is the last member ("[a-]").
            if i + 1 < s.count, s[i] == "-", s[i + 1] != "]" {
                var end = s[i + 1]
                i += 2
                if end == "\\", i < s.count {
                    end = s[i]
                    i += 1
                }
                if c.value <= end.value { ranges.append(c.value...end.value) }
            } else {
                ranges.append(c.value...c.value)
            }
        }
        return nil
    }

    /// True when `name` matches the whole pattern.
    func matches(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars.prefix(Self.maxNameLength + 1))
        guard scalars.count <= Self.maxNameLength else { return false }
        var p = 0
        var n = 0
        var star: (p: Int, n: Int)?
        while n < scalars.count {
            if p < elements.count, elements[p] == .anyRun {
                star = (p, n)
                p += 1
            } else if p < elements.count, matches(elements[p], scalars[n]) {
                p += 1
                n += 1
            } else if let last = star {
                // Let the last "*" swallow one more character and try again from there.
                star = (last.p, last.n + 1)
                p = last.p + 1
                n = last.n + 1
            } else {
                return false
            }
        }
        while p < elements.count, elements[p] == .anyRun { p += 1 }
        return p == elements.count
    }

    private func matches(_ element: Element, _ c: Unicode.Scalar) -> Bool {
        switch element {
        case .anyRun: true
        case .anyOne: true
        case .scalar(let s): s == c || (ignoresCase && Self.lower(s) == Self.lower(c))
        case .set(let ranges, let negated):
            negated != ranges.contains { range in
                range.contains(c.value) || (ignoresCase && (range.contains(Self.lower(c)) || range.contains(Self.upper(c))))
            }
        }
    }

    /// ASCII case folding (names in other scripts compare exactly, as in the C locale).
    private static func lower(_ c: Unicode.Scalar) -> UInt32 {
        (0x41...0x5A).contains(c.value) ? c.value + 0x20 : c.value
    }

    private static func upper(_ c: Unicode.Scalar) -> UInt32 {
        (0x61...0x7A).contains(c.value) ? c.value - 0x20 : c.value
    }

    /// True when `component` holds a glob character (`*`, `?`, `[` or `]`: wget's
    /// `has_wildcards_p`).
    static func hasWildcards(_ component: some StringProtocol) -> Bool {
        component.unicodeScalars.contains { $0 == "*" || $0 == "?" || $0 == "[" || $0 == "]" }
    }

    /// True when the last component of a (percent-decoded) URL path holds a glob character:
    /// only that component is globbed (wget), glob characters in directories are literal.
    /// `"/pub/*.iso"` → true, `"/pub[1]/file"` → false, `"/pub/"` → false.
    static func pathHasWildcards(_ path: String) -> Bool {
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        return hasWildcards(last)
    }
}
