/// Turns a name chosen by a server or a URL into one harmless file name.
///
/// The result is always a single path component: it cannot climb out of the download directory,
/// create directories, hide itself behind a leading dot or carry terminal escape sequences.
public enum FilenameSanitizer {
    /// The longest file name Linux file systems accept (`NAME_MAX`), in UTF-8 bytes.
    public static let maxNameBytes = 255

    /// Neutralises a server- or URL-supplied name: keeps only the final path component (split on "/" and "\"),
    /// removes NUL and control characters (C0, DEL, C1) and bidirectional overrides, strips leading dots and
    /// surrounding whitespace, rejects "." and "..", and cuts the name to at most 255 UTF-8 bytes on a character
    /// boundary (keeping the extension when possible).
    /// Returns nil when nothing usable remains.
    public static func sanitize(_ name: String) -> String? {
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
        return truncated(String(result), maxBytes: maxNameBytes)
    }

    /// Scalars that never belong in a file name: C0 controls (NUL included), DEL, C1 controls, and the
    /// bidirectional controls that can make "evil\u{202E}txt.exe" display as "evilexe.txt".
    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
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
