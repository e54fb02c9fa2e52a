#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a request treats copies the caller already has (NSURLRequest's `cachePolicy`, for a
/// session without a cache store: the caller's own file is the cached copy).
public enum CachePolicy: Sendable, Equatable {
    /// The protocol's rules; nothing is added to the request. The default.
    case useProtocolCachePolicy
    /// Ask every cache on the way for a fresh answer: `Cache-Control: no-cache` and
    /// `Pragma: no-cache` (wget's `--no-cache`).
    case reloadIgnoringLocalCacheData
    /// Fetch only when the resource changed since the copy described by `validator`: the
    /// request carries `If-Modified-Since` and/or `If-None-Match`. A `304 Not Modified` ends a
    /// download task without a file (its ``SessionTask/response`` is the 304, and nothing is
    /// published), as does a `200` from a server that ignores the condition when its
    /// `Last-Modified` is not newer and its length equals the copy's (wget's `-N`).
    case reloadRevalidatingCacheData(CacheValidator)
    /// Fetch only when the resource was not modified after `date` (curl's `--time-cond -DATE`):
    /// the request carries `If-Unmodified-Since`. A `412 Precondition Failed`, or a `200` from a
    /// server that ignores the condition whose `Last-Modified` is later than `date`, ends a
    /// download task without a file, as a `304` does for ``reloadRevalidatingCacheData(_:)``
    /// (``DownloadTask/isNotModified`` is true).
    case reloadIfUnmodifiedSince(Date)

    /// The header fields the policy adds to each request.
    var fields: [(name: String, value: String)] {
        switch self {
        case .useProtocolCachePolicy:
            return []
        case .reloadIgnoringLocalCacheData:
            return [("Cache-Control", "no-cache"), ("Pragma", "no-cache")]
        case .reloadRevalidatingCacheData(let validator):
            var fields: [(name: String, value: String)] = []
            if let date = validator.lastModified, validator.sendsIfModifiedSince {
                fields.append(("If-Modified-Since", HTTPDate.format(date)))
            }
            if let tag = validator.entityTag { fields.append(("If-None-Match", tag)) }
            return fields
        case .reloadIfUnmodifiedSince(let date):
            return [("If-Unmodified-Since", HTTPDate.format(date))]
        }
    }

    /// Whether `response` says the caller's copy is current.
    func isNotModified(_ response: Response) -> Bool {
        if case .reloadIfUnmodifiedSince(let date) = self {
            if response.statusCode == 412 { return true }
            guard response.statusCode == 200, let header = response.headers["Last-Modified"],
                  let remote = HTTPDate.parse(header) else { return false }
            return remote.timeIntervalSince1970.rounded(.down) > date.timeIntervalSince1970.rounded(.down)
        }
        guard case .reloadRevalidatingCacheData(let validator) = self else { return false }
        if response.statusCode == 304 { return true }
        guard response.statusCode == 200, let copy = validator.lastModified,
              let header = response.headers["Last-Modified"], let remote = HTTPDate.parse(header) else { return false }
        let sameLength = validator.length == nil || response.expectedContentLength == validator.length
        return remote.timeIntervalSince1970.rounded(.down) <= copy.timeIntervalSince1970.rounded(.down) && sameLength
    }
}

/// What the caller knows of its copy of a resource.
public struct CacheValidator: Sendable, Equatable {
    /// When the copy was last modified (a file's mtime, which swget sets from `Last-Modified`).
    public var lastModified: Date?
    /// The copy's length in bytes: a `200` of another length is a change whatever its date.
    public var length: Int64?
    /// The copy's entity tag (`If-None-Match`), such as one kept by curl's `--etag-save`.
    public var entityTag: String?
    /// Send `If-Modified-Since`; false compares `Last-Modified` of the answer only (wget's
    /// `--no-if-modified-since`).
    public var sendsIfModifiedSince = true

    /// A validator from what is known of the copy; ``sendsIfModifiedSince`` starts true.
    public init(lastModified: Date? = nil, length: Int64? = nil, entityTag: String? = nil) {
        self.lastModified = lastModified
        self.length = length
        self.entityTag = entityTag
    }
}
