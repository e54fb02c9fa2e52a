#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The head of a server's answer: the counterpart of NSHTTPURLResponse, as a value.
public struct Response: Sendable, Equatable {
    /// The URL this response answers (after any redirects followed so far).
    public var url: URL { storage.url }
    /// The HTTP status code (`200`, `206`, `404`); handlers of other schemes (ftp, file, data)
    /// answer with these codes too.
    public var statusCode: Int { storage.statusCode }
    /// The reason phrase of the status line as sent ("OK"); may be empty.
    public var reasonPhrase: String { storage.reasonPhrase }
    /// "HTTP/1.1", "HTTP/1.0".
    public var httpVersion: String { storage.httpVersion }
    /// The header fields as received, in order, duplicates kept.
    public var headers: HeaderFields { storage.headers }
    /// The body length the framing announces, or nil when unknown (chunked, close-delimited).
    /// Zero for responses that carry no body (HEAD, 1xx, 204, 304).
    public var expectedContentLength: Int64? { storage.expectedContentLength }
    /// The URL the task asked for first, before redirects; drives the suggested filename.
    public var originalURL: URL { storage.originalURL }

    /// The fields, immutable and shared: a response travels through events, decisions and
    /// errors, and a copy is one reference instead of about a hundred bytes and seven.
    private let storage: Storage

    private final class Storage: Sendable {
        let url: URL
        let statusCode: Int
        let reasonPhrase: String
        let httpVersion: String
        let headers: HeaderFields
        let expectedContentLength: Int64?
        let originalURL: URL

        init(url: URL, statusCode: Int, reasonPhrase: String, httpVersion: String, headers: HeaderFields,
             expectedContentLength: Int64?, originalURL: URL) {
            self.url = url
            self.statusCode = statusCode
            self.reasonPhrase = reasonPhrase
            self.httpVersion = httpVersion
            self.headers = headers
            self.expectedContentLength = expectedContentLength
            self.originalURL = originalURL
        }
    }

    /// A response head. `originalURL` defaults to `url`, `reasonPhrase` to empty and `httpVersion`
    /// to "HTTP/1.1".
    public init(url: URL, originalURL: URL? = nil, statusCode: Int, reasonPhrase: String = "",
                httpVersion: String = "HTTP/1.1", headers: HeaderFields, expectedContentLength: Int64?) {
        storage = Storage(url: url, statusCode: statusCode, reasonPhrase: reasonPhrase, httpVersion: httpVersion,
                          headers: headers, expectedContentLength: expectedContentLength, originalURL: originalURL ?? url)
    }

    /// Equal when every field is.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.url == rhs.url && lhs.statusCode == rhs.statusCode && lhs.reasonPhrase == rhs.reasonPhrase
            && lhs.httpVersion == rhs.httpVersion && lhs.headers == rhs.headers
            && lhs.expectedContentLength == rhs.expectedContentLength && lhs.originalURL == rhs.originalURL
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
