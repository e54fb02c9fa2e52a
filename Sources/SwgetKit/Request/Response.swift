#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The head of a server's answer: the counterpart of NSHTTPURLResponse, as a value.
public struct Response: Sendable, Equatable {
    /// The URL this response answers (after any redirects followed so far).
    public let url: URL
    /// The HTTP status code (`200`, `206`, `404`); handlers of other schemes (ftp, file, data)
    /// answer with these codes too.
    public let statusCode: Int
    /// The reason phrase of the status line as sent ("OK"); may be empty.
    public let reasonPhrase: String
    /// "HTTP/1.1", "HTTP/1.0".
    public let httpVersion: String
    /// The header fields as received, in order, duplicates kept.
    public let headers: HeaderFields
    /// The body length the framing announces, or nil when unknown (chunked, close-delimited).
    /// Zero for responses that carry no body (HEAD, 1xx, 204, 304).
    public let expectedContentLength: Int64?
    /// The URL the task asked for first, before redirects; drives the suggested filename.
    public let originalURL: URL

    /// A response head. `originalURL` defaults to `url`, `reasonPhrase` to empty and `httpVersion`
    /// to "HTTP/1.1".
    public init(url: URL, originalURL: URL? = nil, statusCode: Int, reasonPhrase: String = "",
                httpVersion: String = "HTTP/1.1", headers: HeaderFields, expectedContentLength: Int64?) {
        self.url = url
        self.originalURL = originalURL ?? url
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.httpVersion = httpVersion
        self.headers = headers
        self.expectedContentLength = expectedContentLength
    }

    /// The media type of `Content-Type` without parameters, lowercased ("text/html").
    public var mimeType: String? {
        guard let type = headers["Content-Type"] else { return nil }
        let end = type.firstIndex(ofByte: UInt8(ascii: ";")) ?? type.endIndex
        let media = type[..<end].trimmingOWS
        guard !media.isEmpty else { return nil }
        // Most servers send it lowercased already: lowercasing costs ~1,000 instructions.
        return media.containsByte(where: { ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }) ? media.lowercased() : media
    }

    /// The `charset` parameter of `Content-Type`, lowercased and unquoted ("utf-8").
    public var textEncodingName: String? {
        guard let type = headers["Content-Type"] else { return nil }
        for parameter in type.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(\.trimmingOWS)
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].filter { $0 != "\"" }.lowercased()
            }
        }
        return nil
    }

    /// The file name this response suggests (Content-Disposition, then the URL, then
    /// "index.html"), already sanitised: safe to use as a single path component.
    public var suggestedFilename: String {
        suggestedFilename(useContentDisposition: true, trustServerNames: false)
    }

    /// The suggested filename with the naming switches of the command line.
    public func suggestedFilename(useContentDisposition: Bool, trustServerNames: Bool,
                                  defaultName: String = SuggestedFilename.fallbackName, adjustsExtension: Bool = false,
                                  transform: FileNameTransform? = nil) -> String {
        SuggestedFilename.make(contentDisposition: headers["Content-Disposition"], requestURL: originalURL,
                               finalURL: url, mimeType: { mimeType },
                               useContentDisposition: useContentDisposition, trustServerNames: trustServerNames,
                               defaultName: defaultName, adjustsExtension: adjustsExtension, transform: transform)
    }

    /// The file name a download into a directory with `destination`'s naming rules gets
    /// (Content-Disposition, trusted server names, default page, `-E`, name transform).
    public func suggestedFilename(for destination: DownloadDestination) -> String {
        suggestedFilename(useContentDisposition: destination.useContentDisposition,
                          trustServerNames: destination.trustServerNames,
                          defaultName: destination.defaultPageName, adjustsExtension: destination.adjustsExtension,
                          transform: destination.fileNameTransform)
    }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}
