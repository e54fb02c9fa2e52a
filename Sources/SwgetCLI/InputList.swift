#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwgetKit

/// The lines of an `-i` input list that hold URLs, where a list comes from (a file, standard
/// input, or a URL fetched over HTTP(S) or FTP), and how `--base` completes relative lines.
/// Pure, for tests.
enum InputList {
    /// One per line (LF or CRLF), surrounding blanks (spaces, tabs, carriage returns) trimmed,
    /// blank lines and `#` comments skipped. Lines are split on the UTF-8 bytes: as Characters,
    /// "\r\n" is one grapheme that is not "\n", and a list saved with CRLF endings was read as a
    /// single line. A CR among the trailing blanks (`url\r\t`) goes too (FuzzInputList): kept, it
    /// was percent-encoded into the URL that `--base` resolves.
    static func entries(_ text: String) -> [(line: Int, text: String)] {
        // Over the bytes in place: splitting the UTF-8 view into slices and searching each cost
        // ~3,300 instructions per line of a 1,000-line list.
        text.withBytes { bytes in
            let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
            var result: [(line: Int, text: String)] = []
            var line = 0
            var start = 0
            while start <= bytes.count {
                let end = ByteScan.first(UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
                line += 1
                var first = start, last = end
                while first < last, isBlank(bytes[first]) { first += 1 }
                while last > first, isBlank(bytes[last - 1]) { last -= 1 }
                if first < last, bytes[first] != UInt8(ascii: "#") {
                    result.append((line, String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self)))
                }
                start = end + 1
            }
            return result
        }
    }

    /// The schemes of lists fetched from a server (wget's `-i URL`).
    static let remoteSchemes: Set<String> = ["http", "https", "ftp", "ftps"]

    /// Whether an `-i` argument names a list to fetch rather than a file: `SCHEME://...` with
    /// one of ``remoteSchemes`` (a file really named so can be given as `./http://...`).
    static func isRemote(_ argument: String) -> Bool {
        guard let end = argument.firstRange(of: "://") else { return false }
        return remoteSchemes.contains(argument[..<end.lowerBound].lowercased())
    }

    /// `--base`'s URL: absolute, with one of ``remoteSchemes`` and a host.
    static func baseURL(_ text: String) -> URL? {
        guard isRemote(text), let wire = try? TypedURL(text, defaultScheme: nil).wire, let url = URL(string: wire),
              url.host()?.isEmpty == false else { return nil }
        return url
    }

    /// A list line as a URL to fetch: a line with a scheme (`x://`, `data:`) as it is; with a
    /// `base`, any other line resolved against it (RFC 3986 §5.2: `a/b.iso`, `/c.iso`,
    /// `../d`, `?q`); without one, as it is (`example.com/x` then means `http://example.com/x`).
    /// nil when the line cannot be resolved.
    static func resolve(_ line: String, base: URL?) -> String? {
        guard let base, !hasScheme(line) else { return line }
        var reference = IDN.percentEncoded(line)
        // A ':' in the first segment that does not end a scheme name (":x", "1:x") would make the
        // line neither a URL nor a path; RFC 3986 §4.2's "./" keeps it a path (FuzzInputList).
        let firstSegment = reference.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let colon = firstSegment.firstIndex(of: ":"), !isSchemeName(firstSegment[..<colon]) { reference = "./" + reference }
        return URL(string: reference, relativeTo: base)?.absoluteURL.absoluteString
    }

    /// `scheme://...` or `data:...`: a line that is a URL of its own.
    static func hasScheme(_ line: String) -> Bool {
        if line.lowercased().hasPrefix("data:") { return true }
        guard let end = line.firstRange(of: "://") else { return false }
        return isSchemeName(line[..<end.lowerBound])
    }

    /// RFC 3986's scheme syntax: a letter, then letters, digits, `+`, `-` or `.`.
    static func isSchemeName(_ scheme: Substring) -> Bool {
        scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
