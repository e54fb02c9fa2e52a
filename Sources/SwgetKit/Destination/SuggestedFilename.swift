#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The name a download is saved under when the user did not choose one.
public enum SuggestedFilename {
    /// The name used when neither the server nor the URL offers one.
    public static let fallbackName = "index.html"

    /// Name rules in order: Content-Disposition filename (when `useContentDisposition`), then the last path
    /// segment of `trustServerNames ? finalURL : requestURL` (percent-decoded, query ignored), then "index.html".
    /// Every candidate goes through `FilenameSanitizer`; an unusable one falls through to the next rule.
    /// When the chosen name has no dot at all and `mimeType` is in `extensionsByMIMEType`, that extension is
    /// appended ("download" + text/html -> "download.html").
    public static func make(
        contentDisposition: String?, requestURL: URL, finalURL: URL, mimeType: String?,
        useContentDisposition: Bool = true, trustServerNames: Bool = false
    ) -> String {
        var name = fallbackName
        if useContentDisposition, let header = contentDisposition,
            let suggested = ContentDisposition(header)?.filename.flatMap(FilenameSanitizer.sanitize) {
            name = suggested
        } else if let fromURL = nameFromURL(trustServerNames ? finalURL : requestURL) {
            name = fromURL
        }
        guard !name.contains("."), let ext = mimeExtension(mimeType) else { return name }
        return FilenameSanitizer.truncated(name + ext, maxBytes: FilenameSanitizer.maxNameBytes)
    }

    /// The sanitised, percent-decoded last path segment; nil when the path is empty or ends in "/".
    /// A `data:` URL has no path to name a file after: it is "data" (and gets its MIME extension).
    static func nameFromURL(_ url: URL) -> String? {
        if url.scheme?.lowercased() == "data" { return "data" }
        let path = url.path(percentEncoded: true)
        guard !path.isEmpty, !path.hasSuffix("/") else { return nil }
        let segment = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        let decoded = ContentDisposition.percentDecoded(segment, strict: false).flatMap(ContentDisposition.utf8String)
        return FilenameSanitizer.sanitize(decoded ?? String(segment))
    }

    /// Extensions (with their dot) appended to names that have none, keyed by lowercased MIME type.
    public static let extensionsByMIMEType: [String: String] = [
        "text/html": ".html", "application/xhtml+xml": ".html", "text/plain": ".txt", "text/css": ".css",
        "text/csv": ".csv", "text/javascript": ".js", "application/javascript": ".js",
        "application/json": ".json", "application/xml": ".xml", "text/xml": ".xml", "application/pdf": ".pdf",
        "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
        "image/svg+xml": ".svg", "application/gzip": ".gz", "application/x-gzip": ".gz",
        "application/zip": ".zip", "application/x-tar": ".tar", "application/x-bzip2": ".bz2",
        "application/x-xz": ".xz", "application/zstd": ".zst", "audio/mpeg": ".mp3", "video/mp4": ".mp4",
    ]

    /// The extension for a Content-Type value such as "text/html; charset=utf-8", if known.
    static func mimeExtension(_ mimeType: String?) -> String? {
        guard let mimeType, let essence = mimeType.split(separator: ";", omittingEmptySubsequences: false).first
        else { return nil }
        let key = essence.filter { !$0.isWhitespace }.lowercased()
        return extensionsByMIMEType[key]
    }
}
