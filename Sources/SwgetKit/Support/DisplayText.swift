#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text that came from a server, a URL or a file, made safe to show on a terminal or in a log:
/// the one sanitiser every printed string goes through.
///
/// C0 controls (ESC starts terminal escape sequences), DEL, the C1 controls that terminals also
/// obey (U+009B is a one-character CSI, U+009D an OSC), the bidirectional controls that can make
/// `evil\u{202E}txt.exe` display as `evilexe.txt`, and invisible format characters (zero-width
/// spaces and joiners, the byte order mark) are shown escaped as `\x1B` / `\u{202E}`; a
/// backslash that could be mistaken for such an escape is doubled. Everything else, including
/// non-ASCII letters, is kept.
public enum DisplayText {
    /// `text` with every control and invisible formatting character escaped.
    public static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                out += escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True for the scalars ``sanitize(_:)`` escapes.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x5C: true  // a backslash, so that an escape in the output is always ours
        default: isInvisibleFormat(scalar)
        }
    }

    /// Bidirectional controls, zero-width characters and the BOM: invisible, yet they change how
    /// (or whether) the text around them is seen.
    static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        if scalar == "\\" { return "\\\\" }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        if scalar.value < 0x100 { return "\\x" + (hex.count < 2 ? "0" + hex : hex) }
        return "\\u{\(hex)}"
    }
}

/// URLs as shown to people and stored in state files: the password of a URL's userinfo is
/// masked (as curl does), so it never reaches a terminal, a log or a file on disk.
public enum URLDisplay {
    /// `url` with its password replaced by `***` (the user name is kept).
    public static func masked(_ url: URL) -> URL {
        guard url.password(percentEncoded: true) != nil else { return url }
        return URL(string: maskedString(url.absoluteString)) ?? url
    }

    /// The text of a URL with the password in its userinfo replaced by `***`. Works on any text
    /// that looks like `scheme://user:password@host…`, parseable or not.
    public static func maskedString(_ text: String) -> String {
        guard text.containsByte(UInt8(ascii: "@")) else { return text }  // no userinfo: the common case, one byte scan
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"),
              let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
    }

    /// A URL for a terminal: password masked, an internationalised host shown in Unicode
    /// (``unicodeHost(_:)``), controls escaped.
    public static func forDisplay(_ url: URL) -> String {
        forDisplay(url.absoluteString)
    }

    /// The text of a URL for a terminal, as ``forDisplay(_:)-(URL)``; works on any text.
    public static func forDisplay(_ text: String) -> String {
        DisplayText.sanitize(unicodeHost(maskedString(text)))
    }

    /// The text of a URL with its host's `xn--` labels shown in Unicode when that is safe
    /// (``IDN/toUnicode(_:)``: the name must convert back to the same punycode); the wire form
    /// stays in requests, this is for people only. Other text is returned as it is.
    public static func unicodeHost(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hostAndPort = authority[hostStart...]
        guard !hostAndPort.hasPrefix("[") else { return text }
        let hostEnd = hostAndPort.firstIndex(of: ":") ?? hostAndPort.endIndex
        let host = String(hostAndPort[..<hostEnd])
        guard host.lowercased().contains("xn--") else { return text }
        let shown = IDN.toUnicode(host)
        guard shown != host else { return text }
        return String(text[..<hostStart]) + shown + String(text[hostEnd...])
    }
}
