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
    /// Every candidate goes through `FilenameSanitizer` (or, with a `transform`, through the transform and
    /// ``FilenameSanitizer/sanitizeTransformed(_:)``); an unusable one falls through to the next rule.
    /// When the chosen name has no dot at all and `mimeType` is in `extensionsByMIMEType`, that extension is
    /// appended ("download" + text/html -> "download.html"). `defaultName` replaces
    /// "index.html" (wget's `--default-page`); `adjustsExtension` appends `.html` to an HTML
    /// answer's name that does not end in `.html`/`.htm`, `.css` to a stylesheet's (wget's `-E`).
    public static func make(
        contentDisposition: String?, requestURL: URL, finalURL: URL, mimeType: String?,
        useContentDisposition: Bool = true, trustServerNames: Bool = false,
        defaultName: String = fallbackName, adjustsExtension: Bool = false, transform: FileNameTransform? = nil
    ) -> String {
        make(contentDisposition: contentDisposition, requestURL: requestURL, finalURL: finalURL, mimeType: { mimeType },
             useContentDisposition: useContentDisposition, trustServerNames: trustServerNames, defaultName: defaultName,
             adjustsExtension: adjustsExtension, transform: transform)
    }

    /// ``make(contentDisposition:requestURL:finalURL:mimeType:useContentDisposition:trustServerNames:defaultName:adjustsExtension:transform:)``
    /// reading the MIME type only when a rule needs it (most names already have an extension).
    static func make(
        contentDisposition: String?, requestURL: URL, finalURL: URL, mimeType: () -> String?,
        useContentDisposition: Bool, trustServerNames: Bool,
        defaultName: String, adjustsExtension: Bool, transform: FileNameTransform?
    ) -> String {
        let name: String
        if useContentDisposition, let header = contentDisposition,
            let suggested = ContentDisposition(header)?.filename.flatMap({ candidate(Array($0.utf8), transform: transform) }) {
            name = suggested
        } else if let fromURL = nameFromURL(trustServerNames ? finalURL : requestURL, transform: transform) {
            name = fromURL
        } else {
            name = defaultFileName(defaultName, transform: transform)
        }
        if adjustsExtension, let ext = adjustedExtension(name, mimeType: mimeType()) {
            return FilenameSanitizer.truncated(name + ext, maxBytes: FilenameSanitizer.maxNameBytes)
        }
        guard !name.containsByte(UInt8(ascii: ".")), let ext = mimeExtension(mimeType()) else { return name }
        return FilenameSanitizer.truncated(name + ext, maxBytes: FilenameSanitizer.maxNameBytes)
    }

    /// A candidate's bytes made into a name: sanitised, or transformed then held to one component.
    static func candidate(_ bytes: [UInt8], transform: FileNameTransform?) -> String? {
        guard let transform else { return FilenameSanitizer.sanitize(String(decoding: bytes, as: UTF8.self)) }
        return FilenameSanitizer.sanitizeTransformed(transform(bytes))
    }

    /// The name used when nothing else names the file: `defaultName` (transformed), else "index.html".
    static func defaultFileName(_ defaultName: String, transform: FileNameTransform?) -> String {
        candidate(Array(defaultName.utf8), transform: transform) ?? FilenameSanitizer.sanitize(defaultName) ?? fallbackName
    }

    /// wget's `-E`: the extension an HTML or CSS answer's name lacks, if any.
    static func adjustedExtension(_ name: String, mimeType: String?) -> String? {
        let lowered = name.lowercased()
        switch mimeExtension(mimeType) {
        case ".html" where !lowered.hasSuffix(".html") && !lowered.hasSuffix(".htm"): return ".html"
        case ".css" where !lowered.hasSuffix(".css"): return ".css"
        default: return nil
        }
    }

    /// The name of `url`'s last path segment as the naming rules make it (percent-decoded,
    /// sanitised or transformed), or `defaultName` when the URL has none: the name a download
    /// of `url` gets when the server names nothing (wget's `-N` looks for this file).
    public static func fromURL(_ url: URL, defaultName: String = fallbackName, transform: FileNameTransform? = nil) -> String {
        nameFromURL(url, transform: transform) ?? defaultFileName(defaultName, transform: transform)
    }

    /// The sanitised (or transformed), percent-decoded last path segment; nil when the path is
    /// empty or ends in "/". A `data:` URL has no path to name a file after: it is "data" (and
    /// gets its MIME extension).
    static func nameFromURL(_ url: URL, transform: FileNameTransform? = nil) -> String? {
        if url.hasScheme("data") { return candidate(Array("data".utf8), transform: transform) }
        let path = url.path(percentEncoded: true)
        guard let last = path.utf8.last, last != UInt8(ascii: "/") else { return nil }
        let segment = path.lastIndex(ofByte: UInt8(ascii: "/")).map { path[path.utf8.index(after: $0)...] } ?? path[...]
        if transform == nil, !segment.containsByte(UInt8(ascii: "%")) { return FilenameSanitizer.sanitize(String(segment)) }
        let bytes = ContentDisposition.percentDecoded(segment, strict: false)
        guard transform == nil else { return candidate(bytes ?? Array(segment.utf8), transform: transform) }
        let decoded = bytes.flatMap(ContentDisposition.utf8String)
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
        guard let mimeType else { return nil }
        let essence = mimeType[..<(mimeType.firstIndex(ofByte: UInt8(ascii: ";")) ?? mimeType.endIndex)]
        let key = essence.filter { !$0.isWhitespace }.lowercased()
        return extensionsByMIMEType[key]
    }
}
