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

    /// MIME types that mean "this file is gzip data".
    static let gzipTypes: Set<String> = [
        "application/gzip", "application/x-gzip", "application/x-gunzip", "application/gzip-compressed",
        "application/x-gzip-compressed", "application/x-tgz",
    ]
    /// Types servers use when they do not know better; a `.gz` name then decides.
    static let genericTypes: Set<String> = ["application/octet-stream", "binary/octet-stream", "application/x-tar"]

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
        result.payloadIsGzip = mime.map(gzipTypes.contains) == true || (gzipName && (mime == nil || mime.map(genericTypes.contains) == true))
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
    static func hasGzipSuffix(_ name: some StringProtocol) -> Bool {
        let tail = name.utf8.suffix(4).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return tail.suffix(3).elementsEqual(".gz".utf8) || tail.elementsEqual(".tgz".utf8)
    }

    /// The last segment of a percent-encoded URL path, decoded, trailing slashes ignored
    /// (`/a/b.gz/` → `b.gz`, `/` → `/`): URL's `lastPathComponent` without making a URL
    /// (~3,000 instructions).
    static func lastSegment(ofEncodedPath path: String) -> String {
        var end = path.endIndex
        while end > path.startIndex, path.utf8[path.utf8.index(before: end)] == UInt8(ascii: "/") {
            end = path.utf8.index(before: end)
        }
        let trimmed = path[..<end]
        if trimmed.isEmpty { return path.isEmpty ? "" : "/" }
        let segment = trimmed.lastIndex(ofByte: UInt8(ascii: "/")).map { trimmed[trimmed.utf8.index(after: $0)...] } ?? trimmed
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
