/// An RFC 7578 `multipart/form-data` body: parts with a name, an optional filename and content
/// type, and content from memory or from a file, laid out as `segments` that a `BodyReader`
/// streams without holding any file in memory.
///
/// Invariants:
/// - `boundary` is 1–70 characters of `A-Z a-z 0-9 ' + - . _` (RFC 2046 §5.1.1 `bchars` that are
///   also HTTP `tchar`s, so the Content-Type parameter needs no quotes) and occurs in no
///   in-memory byte of the body: no `.bytes` content, escaped name or filename, or content type.
///   File contents are not searched: a random boundary of 32 characters from 62 (190 bits) has a
///   negligible chance of appearing in a file, which is what curl and browsers rely on too.
/// - The bytes produced are exactly `encodedLength(fileLength:)` long when every file keeps the
///   length it is measured with (a `BodyReader` measures with `fstat` and fails on a short file).
///
/// Layout, as curl and browsers write it (RFC 7578 §4, RFC 2046 §5.1.1):
/// ```
/// --BOUNDARY CRLF
/// Content-Disposition: form-data; name="NAME"; filename="FILE" CRLF
/// Content-Type: TYPE CRLF
/// CRLF
/// CONTENT CRLF
/// --BOUNDARY-- CRLF
/// ```
/// Names and filenames are sent as UTF-8, escaped as the WHATWG HTML standard and curl (without
/// `--form-escape`) do: `"` → `%22`, CR → `%0D`, LF → `%0A`, nothing else; RFC 7578 §4.2 forbids
/// `filename*`. A part without a Content-Type is `text/plain` (RFC 7578 §4.4).
public struct MultipartFormData: Sendable, Equatable {
    /// One form field (RFC 7578 §4.2).
    public struct Part: Sendable, Equatable {
        /// Where the part's bytes come from.
        public enum Content: Sendable, Equatable {
            /// In memory; searched for the boundary.
            case bytes([UInt8])
            /// A regular file, read in chunks at send time (its length is measured then).
            case file(path: String)
        }

        /// The field name (`name="..."`); nil sends no name parameter (curl's `-F =value`).
        public let name: String?
        /// The `filename="..."` parameter; nil sends none.
        public let filename: String?
        /// The part's `Content-Type`; nil sends none (meaning `text/plain`, RFC 7578 §4.4).
        public let contentType: String?
        /// The part's bytes.
        public let content: Content

        /// A part exactly as given (no content type is guessed). Throws when a field is longer
        /// than `MultipartFormData.maxFieldBytes`, the content type has control or non-ASCII
        /// characters (it would break the header block), or a file path is empty or has a NUL.
        public init(name: String?, filename: String?, contentType: String?, content: Content) throws(MultipartError) {
            for field in [name, filename].compactMap({ $0 }) where field.utf8.count > MultipartFormData.maxFieldBytes {
                throw .fieldTooLong
            }
            if let contentType {
                guard !contentType.isEmpty, contentType.utf8.count <= 1024,
                      contentType.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) else {
                    throw .invalidContentType(contentType)
                }
            }
            if case .file(let path) = content, path.isEmpty || path.containsByte(0) {
                throw .invalidPath(path)
            }
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }

        /// A text field (curl `-F name=value`): no Content-Type unless given, or guessed from
        /// `filename` when there is one (curl's rule).
        public static func value(name: String?, _ value: String, filename: String? = nil, contentType: String? = nil) throws(MultipartError) -> Part {
            try data(name: name, Array(value.utf8), filename: filename, contentType: contentType)
        }

        /// In-memory bytes (e.g. standard input read for curl's `-F name=@-`, filename "-"):
        /// the Content-Type is `contentType`, else guessed from `filename`, else none.
        public static func data(name: String?, _ bytes: [UInt8], filename: String? = nil, contentType: String? = nil) throws(MultipartError) -> Part {
            try Part(name: name, filename: filename,
                     contentType: contentType ?? filename.flatMap(MultipartFormData.guessContentType(forFilename:)),
                     content: .bytes(bytes))
        }

        /// A file upload (curl `-F name=@path`): `filename` defaults to the path's last
        /// component; the Content-Type is `contentType`, else guessed from the filename, else
        /// from the path, else `application/octet-stream` (curl's order).
        public static func file(name: String?, path: String, filename: String? = nil, contentType: String? = nil) throws(MultipartError) -> Part {
            let sent = filename ?? MultipartFormData.lastComponent(of: path)
            let type = contentType ?? MultipartFormData.guessContentType(forFilename: sent)
                ?? MultipartFormData.guessContentType(forFilename: path) ?? "application/octet-stream"
            return try Part(name: name, filename: sent, contentType: type, content: .file(path: path))
        }

        /// A file's contents sent as a field value (curl `-F name=<path`): no filename; the
        /// Content-Type is `contentType`, else guessed from the path unless that gives the
        /// default `text/plain` (as curl does), else none.
        public static func fileContents(name: String?, path: String, contentType: String? = nil) throws(MultipartError) -> Part {
            let guessed = MultipartFormData.guessContentType(forFilename: path)
            return try Part(name: name, filename: nil, contentType: contentType ?? (guessed == "text/plain" ? nil : guessed),
                            content: .file(path: path))
        }
    }

    /// How quotes and line breaks in names and filenames are escaped.
    public enum NameEscaping: Sendable, Equatable {
        /// WHATWG HTML and curl's default: `"` → `%22`, CR → `%0D`, LF → `%0A`.
        case percent
        /// curl's `--form-escape`: `\` → `\\`, `"` → `\"`; CR and LF still become `%0D`/`%0A`
        /// (curl leaves them raw, which would let a name inject header lines).
        case backslash
    }

    /// A stretch of the encoded body, in order.
    public enum Segment: Sendable, Equatable {
        /// Bytes from memory (delimiters, header blocks, in-memory contents).
        case bytes([UInt8])
        /// The whole content of a file.
        case file(path: String)
    }

    /// The most parts a form may have.
    public static let maxParts = 10_000
    /// The longest name or filename, in UTF-8 bytes.
    public static let maxFieldBytes = 65_536
    /// How many random boundaries are tried before giving up (each found in an in-memory part).
    static let maxBoundaryAttempts = 8

    /// The fields, in order.
    public let parts: [Part]
    /// The boundary (without the leading `--`).
    public let boundary: String
    /// How names and filenames are escaped.
    public let escaping: NameEscaping

    /// The request's `Content-Type`: `multipart/form-data; boundary=BOUNDARY`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// A form with a random boundary from the system's secure generator.
    public init(parts: [Part], escaping: NameEscaping = .percent) throws(MultipartError) {
        var generator = SystemRandomNumberGenerator()
        try self.init(parts: parts, escaping: escaping, using: &generator)
    }

    /// A form with a random boundary drawn from `generator` (tests pass a seeded one). A
    /// boundary found in an in-memory part is drawn again, up to 8 times, then
    /// `MultipartError.boundaryCollision` is thrown.
    public init(parts: [Part], escaping: NameEscaping = .percent, using generator: inout some RandomNumberGenerator) throws(MultipartError) {
        try Self.check(parts)
        for _ in 0..<Self.maxBoundaryAttempts {
            let candidate = Self.randomBoundary(using: &generator)
            if !Self.occurs(candidate, in: parts, escaping: escaping) {
                self.parts = parts
                self.boundary = candidate
                self.escaping = escaping
                return
            }
        }
        throw .boundaryCollision
    }

    /// A form with a chosen boundary; throws when it is not valid (see the type's invariants)
    /// or occurs in an in-memory part.
    public init(parts: [Part], boundary: String, escaping: NameEscaping = .percent) throws(MultipartError) {
        try Self.check(parts)
        guard Self.isValidBoundary(boundary) else { throw .invalidBoundary(boundary) }
        guard !Self.occurs(boundary, in: parts, escaping: escaping) else { throw .boundaryCollision }
        self.parts = parts
        self.boundary = boundary
        self.escaping = escaping
    }

    /// 24 dashes then 32 characters from `A-Z a-z 0-9` (curl's shape, with 190 random bits).
    public static func randomBoundary(using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 24)
        for _ in 0..<32 { bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when `boundary` has 1–70 characters from `A-Z a-z 0-9 ' + - . _`.
    public static func isValidBoundary(_ boundary: String) -> Bool {
        let extra = Set("'+-._".utf8)
        return (1...70).contains(boundary.utf8.count) && boundary.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || extra.contains(b)
        }
    }

    /// The body as segments, in order. Concatenating them gives the exact bytes to send.
    public var segments: [Segment] {
        var result: [Segment] = []
        result.reserveCapacity(parts.count * 2 + 1)
        let dashBoundary = Array("--\(boundary)".utf8)
        for (index, part) in parts.enumerated() {
            var head: [UInt8] = index == 0 ? [] : [0x0D, 0x0A]
            head += dashBoundary + [0x0D, 0x0A]
            head += Array("Content-Disposition: form-data".utf8)
            if let name = part.name { head += Array("; name=\"".utf8) + Self.escape(name, escaping) + [0x22] }
            if let filename = part.filename { head += Array("; filename=\"".utf8) + Self.escape(filename, escaping) + [0x22] }
            head += [0x0D, 0x0A]
            if let type = part.contentType { head += Array("Content-Type: \(type)\r\n".utf8) }
            head += [0x0D, 0x0A]
            switch part.content {
            case .bytes(let bytes):
                // Contents join the head unless large, so small forms are a single segment each.
                if bytes.count <= 4096 { head += bytes; result.append(.bytes(head)) } else { result += [.bytes(head), .bytes(bytes)] }
            case .file(let path):
                result += [.bytes(head), .file(path: path)]
            }
        }
        result.append(.bytes([0x0D, 0x0A] + dashBoundary + Array("--\r\n".utf8)))
        return result
    }

    /// The body's length when every part is in memory; nil when a part is a file.
    public var inMemoryLength: Int64? {
        encodedLength(fileLength: { (_: String) throws(Never) -> Int64? in nil })
    }

    /// The body's exact length, with each file's length from `fileLength` (called once per
    /// file part, in order). Nil when `fileLength` returns nil for a file or the sum overflows.
    public func encodedLength<E: Error>(fileLength: (String) throws(E) -> Int64?) throws(E) -> Int64? {
        var total: Int64 = 0
        for segment in segments {
            let length: Int64
            switch segment {
            case .bytes(let bytes): length = Int64(bytes.count)
            case .file(let path):
                guard let fileLength = try fileLength(path), fileLength >= 0 else { return nil }
                length = fileLength
            }
            let (sum, overflow) = total.addingReportingOverflow(length)
            if overflow { return nil }
            total = sum
        }
        return total
    }

    /// curl's table of well-known extensions (case-insensitive), plus a few common ones
    /// (`.json`, `.css`, `.js`, `.csv`, `.zip`, `.gz`, `.webp`): nil when none matches.
    public static func guessContentType(forFilename filename: String) -> String? {
        guard let dot = filename.lastIndex(ofByte: UInt8(ascii: ".")) else { return nil }
        let ext = String(decoding: filename.utf8[dot...], as: UTF8.self).lowercased()
        return contentTypes[ext]
    }

    // MARK: - Private

    private static let contentTypes: [String: String] = [
        ".gif": "image/gif", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
        ".svg": "image/svg+xml", ".txt": "text/plain", ".htm": "text/html", ".html": "text/html",
        ".pdf": "application/pdf", ".xml": "application/xml",
        ".json": "application/json", ".css": "text/css", ".js": "text/javascript", ".csv": "text/csv",
        ".zip": "application/zip", ".gz": "application/gzip", ".webp": "image/webp",
    ]

    /// The last non-empty `/`-separated component of `path` (`a/b/` → `b`).
    static func lastComponent(of path: String) -> String {
        let trimmed = path.utf8.reversed().drop { $0 == UInt8(ascii: "/") }.reversed()
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return String(decoding: trimmed, as: UTF8.self) }
        return String(decoding: trimmed[trimmed.index(after: slash)...], as: UTF8.self)
    }

    private static func check(_ parts: [Part]) throws(MultipartError) {
        guard !parts.isEmpty else { throw .noParts }
        guard parts.count <= maxParts else { throw .tooManyParts(parts.count) }
    }

    /// `text`'s UTF-8 with `escaping` applied, as it goes between the quotes.
    static func escape(_ text: String, _ escaping: NameEscaping) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x0D: out += Array("%0D".utf8)
            case 0x0A: out += Array("%0A".utf8)
            case 0x22: out += escaping == .percent ? Array("%22".utf8) : [0x5C, 0x22]
            case 0x5C where escaping == .backslash: out += [0x5C, 0x5C]
            default: out.append(byte)
            }
        }
        return out
    }

    /// True when `boundary` occurs in any in-memory byte sequence of `parts`.
    private static func occurs(_ boundary: String, in parts: [Part], escaping: NameEscaping) -> Bool {
        let needle = Array(boundary.utf8)
        let search = Search(needle)
        for part in parts {
            if let name = part.name, search.occurs(in: escape(name, escaping)) { return true }
            if let filename = part.filename, search.occurs(in: escape(filename, escaping)) { return true }
            if let type = part.contentType, search.occurs(in: Array(type.utf8)) { return true }
            if case .bytes(let bytes) = part.content, search.occurs(in: bytes) { return true }
        }
        return false
    }

    /// Knuth–Morris–Pratt: linear in the haystack whatever its content (a value of dashes
    /// costs no more than any other).
    private struct Search {
        let needle: [UInt8]
        let failure: [Int]

        init(_ needle: [UInt8]) {
            self.needle = needle
            var failure = [Int](repeating: 0, count: needle.count)
            var k = 0
            for i in needle.indices.dropFirst() {
                while k > 0 && needle[i] != needle[k] { k = failure[k - 1] }
                if needle[i] == needle[k] { k += 1 }
                failure[i] = k
            }
            self.failure = failure
        }

        func occurs(in haystack: [UInt8]) -> Bool {
            guard !needle.isEmpty, haystack.count >= needle.count else { return false }
            var k = 0
            for byte in haystack {
                while k > 0 && byte != needle[k] { k = failure[k - 1] }
                if byte == needle[k] { k += 1 }
                if k == needle.count { return true }
            }
            return false
        }
    }
}

/// Why a multipart form could not be built.
public enum MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A form needs at least one part (RFC 2046 §5.1.1).
    case noParts
    /// More than `MultipartFormData.maxParts` parts.
    case tooManyParts(Int)
    /// A name or filename longer than `MultipartFormData.maxFieldBytes`.
    case fieldTooLong
    /// A content type that is empty, too long, or has control or non-ASCII characters.
    case invalidContentType(String)
    /// A file path that is empty or contains a NUL byte.
    case invalidPath(String)
    /// A chosen boundary outside the allowed characters or lengths.
    case invalidBoundary(String)
    /// Every boundary tried occurs in an in-memory part.
    case boundaryCollision

    /// One line, for the command's error message.
    public var description: String {
        switch self {
        case .noParts: "a multipart form needs at least one part"
        case .tooManyParts(let count): "too many form parts (\(count), at most \(MultipartFormData.maxParts))"
        case .fieldTooLong: "a form field name or filename is longer than \(MultipartFormData.maxFieldBytes) bytes"
        case .invalidContentType(let type): "invalid form part content type '\(type.debugDescription.dropFirst().dropLast())'"
        case .invalidPath(let path): "invalid file path '\(path.debugDescription.dropFirst().dropLast())'"
        case .invalidBoundary(let boundary): "invalid multipart boundary '\(boundary.debugDescription.dropFirst().dropLast())'"
        case .boundaryCollision: "could not find a multipart boundary that does not occur in the form's data"
        }
    }
}
