/// Turns a name chosen by a server or a URL into one harmless file name.
///
/// The result is always a single path component: it cannot climb out of the download directory,
/// create directories, hide itself behind a leading dot, carry terminal escape sequences or
/// invisible characters, or pose as swget's own bookkeeping (`NAME.part`, `NAME.swget`).
public enum FilenameSanitizer {
    /// The longest file name Linux file systems accept (`NAME_MAX`), in UTF-8 bytes.
    public static let maxNameBytes = 255

    /// Neutralises a server- or URL-supplied name: keeps only the final path component (split on "/" and "\"),
    /// removes NUL and control characters (C0, DEL, C1), bidirectional controls, zero-width characters and
    /// the byte order mark, strips leading dots and surrounding whitespace, rejects "." and "..", cuts the
    /// name to at most 255 UTF-8 bytes on a character boundary (keeping the extension when possible), and
    /// neutralises a reserved suffix (``withoutReservedSuffix(_:)``).
    /// Returns nil when nothing usable remains.
    public static func sanitize(_ name: String) -> String? {
        plainName(name) ?? sanitizeByTheRules(name)
    }

    /// ``sanitize(_:)`` without its fast path.
    static func sanitizeByTheRules(_ name: String) -> String? {
        var kept = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !isRemoved(scalar) {
            kept.append(scalar)
        }
        let cleaned = String(kept)
        let lastComponent = cleaned.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }.last ?? ""
        var result = lastComponent[...]
        while let first = result.first, first == "." || first.isWhitespace {
            result = result.dropFirst()
        }
        while let last = result.last, last.isWhitespace {
            result = result.dropLast()
        }
        guard !result.isEmpty, result != ".", result != ".." else { return nil }
        return withoutReservedSuffix(truncated(String(result), maxBytes: maxNameBytes))
    }

    /// The common case without the general rules' work: `name` when it is printable ASCII with
    /// no separator, starts with neither a dot nor a space, ends without a space, fits in
    /// ``maxNameBytes`` and has no reserved suffix, which ``sanitize(_:)`` returns unchanged; nil
    /// when the general rules must look at it.
    static func plainName(_ name: String) -> String? {
        // Over the bytes in place: walking `utf8` checked an index per byte, and cutting the
        // suffix out as a substring cost more than the scan (every download's name comes here).
        let plain = name.withBytes { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last, bytes.count <= maxNameBytes,
                  first != UInt8(ascii: "."), first != UInt8(ascii: " "), last != UInt8(ascii: " ") else { return false }
            for byte in bytes where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
                return false
            }
            return reservedSuffixStart(bytes) == nil
        }
        return plain ? name : nil
    }

    /// Holds a name made by a caller's ``FileNameTransform`` to one path component, trusting the
    /// transform with the characters it kept (control characters and `\` included, which
    /// ``sanitize(_:)`` removes or splits on): nil when it contains `/` or NUL, or when nothing
    /// remains; leading dots and surrounding whitespace go, `.` and `..` are refused, the name
    /// is cut to 255 bytes and a reserved suffix is neutralised, as in ``sanitize(_:)``.
    public static func sanitizeTransformed(_ name: String) -> String? {
        guard !name.containsByte(0), !name.containsByte(UInt8(ascii: "/")) else { return nil }
        var result = name[...]
        while let first = result.first, first == "." || first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        guard !result.isEmpty else { return nil }
        return withoutReservedSuffix(truncated(String(result), maxBytes: maxNameBytes))
    }

    /// The suffixes of swget's own files beside a download (``DownloadPaths``): a name chosen by a
    /// server must never be taken for a part file or a resume state.
    static let reservedSuffixes = [DownloadPaths.partSuffix, DownloadPaths.stateSuffix]

    /// `name` with a reserved suffix (`.part`, `.swget`, in any case) neutralised by turning its dot
    /// into "_": `x.swget` → `x_swget`, `y.PART` → `y_PART`; other names are returned unchanged (same
    /// length in bytes either way). Every name that comes from a server or a URL passes here last,
    /// after any rewriting (a decoded `x.part.gz` saved as `x.part` included), so that no download
    /// can plant a state file or a part that a later run would adopt.
    public static func withoutReservedSuffix(_ name: String) -> String {
        guard let start = name.withBytes(reservedSuffixStart) else { return name }
        var bytes = Array(name.utf8)
        bytes[start] = UInt8(ascii: "_")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where a reserved suffix (in any case) starts when `bytes` ends with one. The suffixes are
    /// ASCII: comparing the last bytes compares whole scalars.
    static func reservedSuffixStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for suffix in reservedSuffixes where bytes.count >= suffix.utf8.count {
            let start = bytes.count - suffix.utf8.count
            let tail = UnsafeBufferPointer(rebasing: bytes[start...])
            if suffix.withBytes({ asciiCaseInsensitiveEquals(tail, $0) }) { return start }
        }
        return nil
    }

    /// Scalars that never belong in a file name: C0 controls (NUL included), DEL, C1 controls, and the
    /// invisible format characters of ``DisplayText/isInvisibleFormat(_:)``: bidirectional controls that can
    /// make "evil\u{202E}txt.exe" display as "evilexe.txt", zero-width spaces and joiners, the BOM.
    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        default: DisplayText.isInvisibleFormat(scalar)
        }
    }

    /// Cuts `name` to at most `maxBytes` UTF-8 bytes on a character boundary, keeping the extension when
    /// the stem can keep at least one character.
    static func truncated(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let (stem, ext) = splitExtension(name)
        if !ext.isEmpty {
            let cutStem = prefix(stem, maxBytes: maxBytes - ext.utf8.count)
            if !cutStem.isEmpty { return cutStem + ext }
        }
        return prefix(name[...], maxBytes: maxBytes)
    }

    /// The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, cut between characters
    /// (between scalars when a single character is already too long).
    static func prefix(_ text: Substring, maxBytes: Int) -> String {
        guard maxBytes > 0 else { return "" }
        var bytes = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            if bytes + size > maxBytes { break }
            bytes += size
            end = text.index(after: index)
        }
        if end != text.startIndex || text.isEmpty { return String(text[..<end]) }
        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            if bytes + size > maxBytes { break }
            bytes += size
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// Compression suffixes that, after ".tar", form one extension (".tar.gz").
    private static let tarCompressions: Set<String> = ["gz", "bz2", "xz", "zst"]
    /// An extension is at most this many characters after its dot.
    private static let maxExtensionCharacters = 16

    /// Splits `name` into stem and extension (with its dot): "a.tar.gz" -> ("a", ".tar.gz"), "README" -> ("README", "").
    /// An extension is a short, whitespace-free suffix after the last dot, with a non-empty stem before it.
    static func splitExtension(_ name: String) -> (stem: Substring, ext: Substring) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name[...], "") }
        let body = name[name.index(after: dot)...]
        guard !body.isEmpty, body.count <= maxExtensionCharacters, !body.contains(where: \.isWhitespace) else {
            return (name[...], "")
        }
        let stem = name[..<dot]
        if tarCompressions.contains(body.lowercased()), stem.count > 4, stem.lowercased().hasSuffix(".tar") {
            let tarDot = name.index(dot, offsetBy: -4)
            return (name[..<tarDot], name[tarDot...])
        }
        return (stem, name[dot...])
    }
}
