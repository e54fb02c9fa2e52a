#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a response's body is decoded: the pure rules, tested without sockets.
///
/// Two kinds, as in Apple's URL Loading System: *content codings* (`Content-Encoding`, undone by the loading
/// system whenever the configuration decodes them) and *encoded payloads* (NSURLDownload's
/// decoding: a `.gz` file that the delegate may choose to store decompressed).
public struct BodyDecoding: Sendable, Equatable {
    /// Content codings to undo, in the order the server applied them.
    public var contentCodings: [ContentCoding] = []
    /// The payload itself is gzip data (application/gzip, or a `.gz` name served as
    /// octet-stream): the delegate may decide to decode it.
    public var payloadIsGzip = false
    /// A `Content-Encoding` swget cannot undo; the body is stored as sent.
    public var unsupportedEncoding: String?

    /// Whether `mime` means "this file is gzip data". A `switch`, not a `Set`: the strings
    /// differ in length, so most comparisons end at once, where a set hashes the whole type.
    static func isGzipType(_ mime: String) -> Bool {
        switch mime {
        case "application/gzip", "application/x-gzip", "application/x-gunzip", "application/gzip-compressed",
             "application/x-gzip-compressed", "application/x-tgz":
            return true
        default:
            return false
        }
    }

    /// Whether `mime` is one that servers use when they do not know better; a `.gz` name then decides.
    static func isGenericType(_ mime: String) -> Bool {
        switch mime {
        case "application/octet-stream", "binary/octet-stream", "application/x-tar": return true
        default: return false
        }
    }

    /// Judges a response. `decodeContent` is the configuration's switch; `name` is the file
    /// name the body would be saved under.
    ///
    /// A `.gz` file that a server also labels `Content-Encoding: gzip` (Apache's classic
    /// `AddEncoding x-gzip .gz`) is a gzip *payload*: decoding it behind the user's back would
    /// save text under a `.gz` name, so it is stored as sent (wget's rule).
    public static func judge(_ response: Response, decodeContent: Bool, name: String) -> BodyDecoding {
        var result = BodyDecoding()
        let mime = response.mimeType
        let gzipName = hasGzipSuffix(name) || hasGzipSuffix(lastSegment(ofEncodedPath: response.url.path(percentEncoded: true)))
        result.payloadIsGzip = mime.map(isGzipType) == true || (gzipName && (mime == nil || mime.map(isGenericType) == true))
        guard let header = response.headers["Content-Encoding"] else { return result }
        guard let codings = ContentCoding.parse(header) else {
            result.unsupportedEncoding = header
            return result
        }
        if codings == [.gzip] && (result.payloadIsGzip || gzipName) {
            result.payloadIsGzip = true
            return result
        }
        result.payloadIsGzip = false  // the payload is only known after undoing the codings
        if decodeContent { result.contentCodings = codings }
        return result
    }

    /// The name a decoded gzip payload is saved under: `data.csv.gz` → `data.csv`,
    /// `backup.tgz` → `backup.tar` (gzip's own rules); other names are kept.
    public static func decodedName(_ name: String) -> String {
        let lower = name.lowercased()
        if lower.hasSuffix(".tgz") && name.count > 4 { return String(name.dropLast(4)) + ".tar" }
        if lower.hasSuffix(".gz") && name.count > 3 { return String(name.dropLast(3)) }
        return name
    }

    /// Ends in `.gz` or `.tgz`, ASCII case-insensitively, compared by byte (lowercasing the
    /// whole name made a string per response; no other character lowercases to these letters).
    static func hasGzipSuffix(_ name: String) -> Bool {
        name.withBytes { bytes in
            let lower = { (i: Int) in bytes[bytes.count - i] | 0x20 }  // '.' (0x2E) is unchanged by | 0x20
            guard bytes.count >= 3, bytes[bytes.count - 3] == UInt8(ascii: "."), lower(2) == UInt8(ascii: "g"),
                  lower(1) == UInt8(ascii: "z") else {
                return bytes.count >= 4 && bytes[bytes.count - 4] == UInt8(ascii: ".") && lower(3) == UInt8(ascii: "t")
                    && lower(2) == UInt8(ascii: "g") && lower(1) == UInt8(ascii: "z")
            }
            return true
        }
    }

    /// The last segment of a percent-encoded URL path, decoded, trailing slashes ignored
    /// (`/a/b.gz/` → `b.gz`, `/` → `/`): URL's `lastPathComponent` without making a URL
    /// (~3,000 instructions).
    static func lastSegment(ofEncodedPath path: String) -> String {
        let (start, end) = path.withBytes { bytes -> (Int, Int) in
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            var start = end
            while start > 0, bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
            return (start, end)
        }
        if start == end { return path.isEmpty ? "" : "/" }
        let utf8 = path.utf8
        let segment = path[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
        guard segment.containsByte(UInt8(ascii: "%")) else { return String(segment) }
        return ContentDisposition.percentDecoded(segment, strict: true).flatMap { String(validating: $0, as: UTF8.self) } ?? String(segment)
    }

    /// A `Content-Encoding` value in a form fit for comparison ("gzip", "deflate, gzip"), nil for
    /// identity: what the stored bytes of a resumable download are encoded with.
    static func normalizedEncoding(_ header: String?) -> String? {
        let names = header.map(ContentCoding.names) ?? []
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }
}
