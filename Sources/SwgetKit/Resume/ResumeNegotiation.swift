/// The resume protocol as pure functions: which headers a resumed request carries, and what a
/// response to it means. Never splices bytes that may belong to another representation.
enum ResumeNegotiation {
    /// How to ask for the rest.
    enum Plan: Equatable, Sendable {
        /// Nothing worth resuming (no bytes, or nothing to validate them with): start at zero.
        case fresh
        /// `Range: bytes=offset-`, with `If-Range` when a validator is usable.
        case resume(offset: Int64, headers: [HeaderPair])
    }

    struct HeaderPair: Equatable, Sendable {
        let name: String
        let value: String
    }

    /// What the answer to a resumed request means.
    enum Outcome: Equatable, Sendable {
        /// The body continues our bytes: append it at `offset`.
        case append(offset: Int64)
        /// The body is the whole representation (a 200): truncate and write it from zero.
        case restartWithThisBody(reason: String)
        /// The answer cannot be used: truncate and ask again without a range.
        case restartWithNewRequest(reason: String)
        /// We already hold every byte (416 with a matching length).
        case complete
        /// Not an answer to the range (an error status, a redirect...): handle as usual.
        case notApplicable
    }

    /// The plan for `data`. A strong ETag is used for `If-Range`, else Last-Modified; a weak
    /// ETag is never used. Without any validator a resume is still attempted when the total
    /// length is known: the answer must then repeat that exact length (wget's `-c` check).
    /// `Accept-Encoding` asks for exactly the coding of the stored bytes (identity, usually), as
    /// a range of another coding would be a range of other bytes.
    static func plan(for data: ResumeData) -> Plan {
        // A segmented part may hold ranges further on even when its first bytes are missing.
        guard data.bytesOnDisk > 0 || data.segments?.isEmpty == false else { return .fresh }
        var headers = [HeaderPair(name: "Range", value: "bytes=\(data.bytesOnDisk)-"),
                       HeaderPair(name: "Accept-Encoding", value: data.contentEncoding ?? "identity")]
        if data.hasStrongETag, let etag = data.etag {
            headers.append(HeaderPair(name: "If-Range", value: etag))
        } else if let modified = data.lastModified {
            headers.append(HeaderPair(name: "If-Range", value: modified))
        } else if data.expectedLength == nil && !data.acceptsUnvalidatedRange {
            return .fresh
        }
        return .resume(offset: data.bytesOnDisk, headers: headers)
    }

    /// Judges the response head to a request made with `plan`.
    static func evaluate(status: Int, headers: HeaderFields, resuming data: ResumeData) -> Outcome {
        let offset = data.bytesOnDisk
        switch status {
        case 200:
            return .restartWithThisBody(reason: "the server sent the whole file (range ignored or file changed)")
        case 206:
            if let type = headers["Content-Type"], type.lowercased().hasPrefix("multipart/byteranges") {
                return .restartWithNewRequest(reason: "multipart range answer")
            }
            guard let range = ContentRange(headers["Content-Range"] ?? ""), let first = range.first else {
                return .restartWithNewRequest(reason: "206 without a usable Content-Range")
            }
            guard first == offset else {
                return .restartWithNewRequest(reason: "the server resumed at byte \(first), not \(offset)")
            }
            let coding = BodyDecoding.normalizedEncoding(headers["Content-Encoding"])
            guard coding == data.contentEncoding else {
                return .restartWithNewRequest(reason: "the server changed the content coding (\(data.contentEncoding ?? "identity") → \(coding ?? "identity"))")
            }
            if let expected = data.expectedLength, let total = range.total, total != expected {
                return .restartWithNewRequest(reason: "the file's length changed (\(expected) → \(total))")
            }
            if data.expectedLength != nil, range.total == nil, !data.hasStrongETag, data.lastModified == nil {
                return .restartWithNewRequest(reason: "cannot confirm the file is unchanged")
            }
            if let etag = headers["ETag"], let ours = data.etag, data.hasStrongETag, etag != ours {
                return .restartWithNewRequest(reason: "the file changed (new ETag)")
            }
            if let modified = headers["Last-Modified"], let ours = data.lastModified, !data.hasStrongETag, modified != ours {
                return .restartWithNewRequest(reason: "the file changed (new Last-Modified)")
            }
            return .append(offset: offset)
        case 416:
            if let range = ContentRange(headers["Content-Range"] ?? ""), let total = range.total,
               total == offset, data.expectedLength == nil || data.expectedLength == total {
                return .complete
            }
            return .restartWithNewRequest(reason: "the server cannot serve byte \(offset) (file shorter now?)")
        default:
            return .notApplicable
        }
    }
}

/// A `Content-Range` value: `bytes 100-199/1000`, `bytes 100-199/*`, `bytes */1000`.
struct ContentRange: Equatable, Sendable {
    let first: Int64?
    let last: Int64?
    let total: Int64?

    init?(_ value: String) {
        let text = value.trimmingOWS
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingOWS
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" { total = nil } else {
            guard let t = Self.number(parts[1]) else { return nil }
            total = t
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            first = nil
            last = nil
        } else {
            let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let a = Self.number(bounds[0]), let b = Self.number(bounds[1]), a <= b else { return nil }
            if let total, b >= total { return nil }
            first = a
            last = b
        }
    }

    private static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.utf8.count <= 18, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(s)
    }
}
