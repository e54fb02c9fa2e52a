#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything needed to continue an interrupted download (the seeds' resume data), as a
/// documented, versioned value that serialises to JSON.
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

    /// Parses the JSON form; nil when it is not resume data of a known version.
    public init?(serialized bytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(ResumeData.self, from: Data(bytes)),
              value.version == Self.currentVersion, value.bytesOnDisk >= 0 else { return nil }
        self = value
    }
}
