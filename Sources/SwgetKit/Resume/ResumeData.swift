#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything needed to continue an interrupted download (NSURLSession's resume data), as a
/// documented, versioned value that serialises to JSON.
///
/// URLs are stored with the password of their userinfo masked (credentials never reach a file);
/// a download that needs them gets them again from the request or the credential storage.
/// Paths are absolute, so resume data works from any working directory. When the data comes
/// from a state file on disk, its paths are ignored and derived from the state file's own
/// location (see ``DownloadPaths``).
///
/// Invariants: `bytesOnDisk` never exceeds what is durably in the `.part` file at `partPath`
/// (the state is written only after the part file was synced up to that length), and the bytes
/// `0..<bytesOnDisk` are a prefix of the representation identified by the validators.
///
/// Content encodings: ranges count bytes of the representation *as sent*, so only bytes stored
/// as sent can be continued. Undecoded bodies (the default identity coding, or any coding kept
/// with ``SessionConfiguration/decodesContentEncoding`` off) resume; `contentEncoding` records
/// their coding, the resumed request asks for exactly that coding, and a `206` in another coding
/// starts over. A body that is being decoded (a `Content-Encoding`, or a gzip payload the
/// delegate chose to decode) is never resumed: its state keeps `bytesOnDisk` at 0, so an
/// interrupted decoded transfer restarts from zero — slower, never corrupt.
public struct ResumeData: Sendable, Equatable, Codable {
    /// Format version; readers refuse versions they do not know.
    public static let currentVersion = 1

    /// The format version of this value (``currentVersion`` for data made by this library).
    public var version: Int
    /// The URL the download was asked for.
    public var originalURL: String
    /// The URL that answered after redirects (ranges are requested from it).
    public var finalURL: String
    /// The entity tag of the representation, exactly as the server sent it (quotes included).
    public var etag: String?
    /// The `Last-Modified` value as sent.
    public var lastModified: String?
    /// The full length of the representation, when the server announced it.
    public var expectedLength: Int64?
    /// Bytes at the start of the part file that are known good and durable.
    public var bytesOnDisk: Int64
    /// The `.part` file holding those bytes.
    public var partPath: String
    /// The final path the part file will be renamed to.
    public var finalPath: String
    /// The background session that owns this state, if any.
    public var sessionIdentifier: String?
    /// Resume even without validators or a known length (`-c` on a file another tool left):
    /// the answer must still start exactly at `bytesOnDisk`.
    public var acceptsUnvalidatedRange: Bool = false
    /// For a part written in segments (`--split`): every range known good and durable, sorted
    /// and merged; `bytesOnDisk` is then the length of the first one when it starts at 0. The
    /// part file may hold other bytes between them (holes are fetched again). nil for a part
    /// written from the start, whose good bytes are exactly `0..<bytesOnDisk`.
    public var segments: [ByteRange]?
    /// The `Content-Encoding` of the stored bytes (normalised: "gzip", "deflate, gzip"); nil for
    /// identity.
    public var contentEncoding: String?

    /// Resume data of ``currentVersion`` for a part file holding `bytesOnDisk` good bytes;
    /// `acceptsUnvalidatedRange` starts false, `segments` and `contentEncoding` nil.
    public init(originalURL: String, finalURL: String, etag: String?, lastModified: String?,
                expectedLength: Int64?, bytesOnDisk: Int64, partPath: String, finalPath: String,
                sessionIdentifier: String? = nil) {
        self.version = Self.currentVersion
        self.originalURL = originalURL
        self.finalURL = finalURL
        self.etag = etag
        self.lastModified = lastModified
        self.expectedLength = expectedLength
        self.bytesOnDisk = bytesOnDisk
        self.partPath = partPath
        self.finalPath = finalPath
        self.sessionIdentifier = sessionIdentifier
    }

    /// True for a strong entity tag (`"abc"`); weak ones (`W/"abc"`) cannot validate ranges.
    public var hasStrongETag: Bool {
        guard let etag else { return false }
        return etag.hasPrefix("\"") && !etag.hasPrefix("W/")
    }

    /// The JSON form (stable key order, one line).
    public func serialized() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(self))) ?? []
    }

    private enum CodingKeys: String, CodingKey {
        case version, originalURL, finalURL, etag, lastModified, expectedLength, bytesOnDisk, partPath, finalPath
        case sessionIdentifier, acceptsUnvalidatedRange, contentEncoding, segments
    }

    /// Decodes the JSON form; absent optional fields take their defaults. The version is not
    /// checked here: ``init(serialized:)`` and ``validated(partLength:)`` do.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        originalURL = try c.decode(String.self, forKey: .originalURL)
        finalURL = try c.decode(String.self, forKey: .finalURL)
        etag = try c.decodeIfPresent(String.self, forKey: .etag)
        lastModified = try c.decodeIfPresent(String.self, forKey: .lastModified)
        expectedLength = try c.decodeIfPresent(Int64.self, forKey: .expectedLength)
        bytesOnDisk = try c.decode(Int64.self, forKey: .bytesOnDisk)
        partPath = try c.decode(String.self, forKey: .partPath)
        finalPath = try c.decode(String.self, forKey: .finalPath)
        sessionIdentifier = try c.decodeIfPresent(String.self, forKey: .sessionIdentifier)
        acceptsUnvalidatedRange = try c.decodeIfPresent(Bool.self, forKey: .acceptsUnvalidatedRange) ?? false
        contentEncoding = try c.decodeIfPresent(String.self, forKey: .contentEncoding)
        segments = try c.decodeIfPresent([ByteRange].self, forKey: .segments)
    }

    /// Parses the JSON form; nil when it is not resume data of a known version. The values
    /// are not checked against any file: see ``validated(partLength:)``.
    public init?(serialized bytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(ResumeData.self, from: Data(bytes)),
              value.version == Self.currentVersion else { return nil }
        self = value
    }

    /// Why resume data cannot be used.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in one line ("unknown version 2").
        public let description: String
    }

    /// Limits on what a state may claim.
    static let maxSegments = 100_000

    /// This data, if every field makes sense for a part file of `partLength` bytes: a known
    /// version; lengths and offsets not negative; `bytesOnDisk` within the part and the
    /// representation; segments ordered, disjoint, non-empty, within the representation's
    /// length (which they require) and the part; URLs that parse.
    public func validated(partLength: Int64) -> Result<ResumeData, Invalid> {
        func invalid(_ reason: String) -> Result<ResumeData, Invalid> { .failure(Invalid(description: reason)) }
        guard version == Self.currentVersion else { return invalid("unknown version \(version)") }
        guard URL(string: originalURL) != nil, URL(string: finalURL) != nil else { return invalid("unparseable URL") }
        guard bytesOnDisk >= 0 else { return invalid("negative byte count") }
        if let expectedLength, expectedLength < 0 { return invalid("negative length") }
        if let expectedLength, bytesOnDisk > expectedLength { return invalid("more bytes than the file's length") }
        guard bytesOnDisk <= partLength else { return invalid("claims \(bytesOnDisk) bytes; the part holds \(partLength)") }
        if let segments {
            guard let length = expectedLength else { return invalid("segments without a length") }
            guard segments.count <= Self.maxSegments else { return invalid("too many segments") }
            var previousEnd: Int64 = -1
            for range in segments {
                guard range.start >= 0, range.start < range.end, range.end <= length, range.start > previousEnd,
                      range.end <= partLength else { return invalid("segment \(range.start)-\(range.end) is out of order or range") }
                previousEnd = range.end
            }
        }
        return .success(self)
    }
}
