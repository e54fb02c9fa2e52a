#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// wget's directory options as a pure function from a URL to a path relative to the download
/// directory (`-P`): `-nd`, `-x`/`--force-directories`, `-nH`/`--no-host-directories`,
/// `--protocol-directories`, `--cut-dirs=N`, `--default-page=NAME`, with the name escaping of
/// `--restrict-file-names` (wget's `url_file_name` and `append_dir_structure`, src/url.c).
///
/// Invariants, whatever the URL (it is hostile input):
/// - the result is relative: it never starts with `/`;
/// - no component is empty, `.` or `..` (a decoded `..` becomes `%2E%2E`, a decoded `.`
///   becomes `%2E`; a host named `..` becomes `%2E%2E`, as wget defangs it);
/// - no component contains `/` or NUL (`%2F` and `%00` are decoded, then escaped again);
/// - every component fits `NAME_MAX` (255 bytes; the file name 236, leaving wget's 19 bytes
///   of `CHOMP_BUFFER` for suffixes such as `.1` or `.part`), and the whole path fits
///   `maxPathBytes`, or the call throws.
///
/// Literal `.` and `..` segments of the path are resolved first (RFC 3986 §5.2.4, as wget's
/// `path_simplify` does for HTTP: a `..` at the root is dropped); percent-encoded ones are not
/// dot segments for the server, so they are kept and defanged.
public struct DirectoryLayout: Sendable, Equatable {
    /// `-x`: directories from the host and path. Off by default (and with `-nd`), as in wget
    /// without `-r`: then only the file name is produced.
    public var forcesDirectories = false
    /// Off with `-nH`: no `host[:port]` directory.
    public var hostDirectories = true
    /// `--protocol-directories`: a `http`/`https`/`ftp` directory before the host.
    public var protocolDirectories = false
    /// `--cut-dirs=N`: the first N directories of the URL's path are left out. As in wget, an
    /// empty segment (`a//b`) counts as one. Negative values count as 0.
    public var cutDirectories = 0
    /// `--default-page=NAME`: the file name for a URL whose path ends with `/`.
    public var defaultPage = "index.html"
    /// `--restrict-file-names`: how decoded bytes are escaped.
    public var restriction = FileNameRestriction()

    /// The longest relative path produced, in UTF-8 bytes (`PATH_MAX` is 4096 and `-P` needs
    /// room too).
    public static let maxPathBytes = 3072
    /// `NAME_MAX` for a directory, and for a file name less wget's `CHOMP_BUFFER`.
    static let maxComponentBytes = 255
    static let maxFileNameBytes = 255 - 19

    /// A URL whose path cannot become a file path.
    public struct LayoutError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The length the path would have had, in UTF-8 bytes.
        public let byteCount: Int
        /// One line naming the length and the limit.
        public var description: String {
            "the URL's path is too long for a local file path (\(byteCount) bytes, at most \(DirectoryLayout.maxPathBytes))"
        }
    }

    /// The parts of a URL the layout reads, as they appear on the wire.
    public struct Location: Sendable, Equatable {
        /// `http`, `https`, `ftp`... (compared case-insensitively).
        public var scheme: String
        /// The host as sent on the wire (an internationalised name in its `xn--` form, as wget
        /// writes it), without IPv6 brackets.
        public var host: String
        /// The port when the URL names one; omitted from the directory when it is the scheme's
        /// default (80, 443, 21, 990).
        public var port: Int?
        /// The percent-encoded path, starting with `/` (or empty).
        public var path: String
        /// The percent-encoded query without `?`; nil when the URL has no `?` (an empty query
        /// still adds the separator, as in wget).
        public var query: String?

        /// A location from its parts, as described on each property.
        public init(scheme: String, host: String, port: Int? = nil, path: String, query: String? = nil) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.path = path
            self.query = query
        }

        /// The location of `url`, with its percent-encoding kept.
        public init(url: URL) {
            var host = url.host(percentEncoded: true) ?? ""
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self.init(scheme: url.scheme ?? "", host: host, port: url.port,
                      path: url.path(percentEncoded: true), query: url.query(percentEncoded: true))
        }
    }

    /// wget's defaults without `-r`: no directories, `index.html`, `unix` escaping.
    public init() {}

    /// The directory components for `url`: ``directories(for:)-(Location)`` of its location,
    /// which is taken apart only when there are directories to make (without `-x`, a batch
    /// would pay about 3,000 instructions a URL for nothing).
    public func directories(for url: URL) -> [String] {
        guard forcesDirectories else { return [] }
        return directories(for: Location(url: url))
    }

    /// The directory components for `location` (empty unless `forcesDirectories`), each one safe
    /// as a single path component: `[scheme]`, `[host[:port]]`, then the path's directories
    /// after `cutDirectories`.
    public func directories(for location: Location) -> [String] {
        guard forcesDirectories else { return [] }
        var result: [String] = []
        if protocolDirectories {
            let scheme = restriction.withCase(.unchanged).escape(location.scheme.lowercased())
            if !scheme.isEmpty { result.append(scheme) }
        }
        if hostDirectories, !location.host.isEmpty {
            // wget leaves the host's case alone (it is already lower case) and escapes nothing;
            // here it is escaped like any element, so a hostile host cannot hold `/`.
            var host = restriction.withCase(.unchanged).escape(location.host.lowercased())
            if let port = location.port, port != Self.defaultPort(location.scheme) {
                host += restriction.portSeparator + String(port)
            }
            result.append(Self.truncated(host, to: Self.maxComponentBytes))
        }
        var cut = max(cutDirectories, 0)
        for segment in Self.segments(of: location.path).dropLast() {
            if cut > 0 { cut -= 1; continue }
            if segment.isEmpty { continue }
            let element = restriction.escape(element: Self.percentDecoded(segment))
            result.append(Self.truncated(element, to: Self.maxComponentBytes))
        }
        return result
    }

    /// wget's file name for `location`: the last path segment, percent-decoded (or
    /// `defaultPage` when it is empty), then `?query` (`@query` in `windows` mode) with the
    /// query as sent, the whole escaped as one element and cut to 236 bytes.
    public func fileName(for location: Location) -> String {
        let last = Self.segments(of: location.path).last ?? ""
        var bytes = last.isEmpty ? Array(defaultPage.utf8) : Self.percentDecoded(last)
        if let query = location.query {
            bytes += Array(restriction.querySeparator.utf8) + Array(query.utf8)
        }
        return Self.name(restriction.escape(element: bytes), defaultPage: defaultPage, restriction: restriction)
    }

    /// The relative path for `location`: its directories and then `fileName` when given (a name
    /// chosen elsewhere, e.g. from Content-Disposition, escaped here like any element, as wget's
    /// `replaced_filename`), else the URL's own file name.
    public func relativePath(for location: Location, fileName: String? = nil) throws(LayoutError) -> String {
        let name: String
        if let fileName {
            name = Self.name(restriction.escape(fileName), defaultPage: defaultPage, restriction: restriction)
        } else {
            name = self.fileName(for: location)
        }
        let path = (directories(for: location) + [name]).joined(separator: "/")
        guard path.utf8.count <= Self.maxPathBytes else { throw LayoutError(byteCount: path.utf8.count) }
        return path
    }

    /// A non-empty file name: an escaped name, else the escaped default page, else `index.html`.
    static func name(_ escaped: String, defaultPage: String, restriction: FileNameRestriction) -> String {
        if !escaped.isEmpty { return truncated(escaped, to: maxFileNameBytes) }
        let page = restriction.escape(defaultPage)
        return page.isEmpty ? "index.html" : truncated(page, to: maxFileNameBytes)
    }

    /// The scheme's default port, which wget leaves out of the host directory.
    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": return 80
        case "https": return 443
        case "ftp": return 21
        case "ftps": return 990
        default: return nil
        }
    }

    /// The path's segments after removing literal dot segments (RFC 3986 §5.2.4). The last
    /// element is the file part (empty when the path ends with `/`, `/.` or `/..`).
    static func segments(of path: String) -> [Substring] {
        var raw = path[...]
        if raw.hasPrefix("/") { raw = raw.dropFirst() }
        var output: [Substring] = []
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            if part == "." || part == ".." {
                if part == "..", !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            } else {
                output.append(part)
            }
        }
        return output.isEmpty ? [""] : output
    }

    /// Decodes `%XX` escapes into bytes; a `%` not followed by two hex digits stays as it is.
    static func percentDecoded(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
               let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// The value of an ASCII hex digit.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// `text` cut to at most `limit` UTF-8 bytes, never inside a scalar or a `%XX` escape.
    static func truncated(_ text: String, to limit: Int) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count > limit else { return text }
        var end = 0
        while end < bytes.count {
            let unit: Int
            if bytes[end] == 0x25, end + 2 < bytes.count, hexValue(bytes[end + 1]) != nil, hexValue(bytes[end + 2]) != nil {
                unit = 3
            } else if bytes[end] < 0x80 {
                unit = 1
            } else {
                unit = max(FileNameRestriction.utf8SequenceLength(bytes, at: end), 1)
            }
            guard end + unit <= limit else { break }
            end += unit
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

extension FileNameRestriction {
    /// The same restriction with another case rule (wget changes case only in path elements).
    func withCase(_ letterCase: LetterCase) -> FileNameRestriction {
        var copy = self
        copy.letterCase = letterCase
        return copy
    }
}
