extension TestResponse {
    /// Serves `body` the way a well-behaved static file server would for this request: a single
    /// `Range: bytes=...` gets a 206 with `Content-Range`, an unsatisfiable one a 416, anything
    /// else (no Range, several ranges, a stale `If-Range`) the whole body with 200.
    ///
    /// Adds `Accept-Ranges: bytes`, and `ETag` when `etag` is given (quote it yourself:
    /// `"\"v1\""`). Misbehaving variants are built from the result with modifiers or by hand.
    public static func serving(_ body: [UInt8], to request: TestRequest, etag: String? = nil) -> TestResponse {
        var headers: [(String, String)] = [("Accept-Ranges", "bytes")]
        if let etag { headers.append(("ETag", etag)) }

        guard let range = request.header("Range"), request.method == "GET" || request.method == "HEAD" else {
            return .ok(body, headers: headers)
        }
        if let ifRange = request.header("If-Range"), ifRange != etag {
            return .ok(body, headers: headers)
        }
        switch ByteRange.parse(range, length: body.count) {
        case .none:
            return .ok(body, headers: headers)
        case .unsatisfiable:
            return .status(416, headers: headers + [("Content-Range", "bytes */\(body.count)")])
        case .range(let first, let last):
            let contentRange = ("Content-Range", "bytes \(first)-\(last)/\(body.count)")
            return .status(206, body: Array(body[first...last]), headers: headers + [contentRange])
        }
    }
}

/// A single byte range from a `Range` header, resolved against a representation's length.
enum ByteRange: Equatable {
    /// Absent, malformed or several ranges: serve the whole representation.
    case none
    case unsatisfiable
    /// Inclusive offsets.
    case range(first: Int, last: Int)

    static func parse(_ header: String, length: Int) -> ByteRange {
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .none }
        let spec = trimmed.dropFirst(6).trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .none }
        let start = spec[..<dash].trimmingWhitespace()
        let end = spec[spec.index(after: dash)...].trimmingWhitespace()
        switch (Int(start), Int(end)) {
        case (nil, let suffix?) where start.isEmpty:
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .range(first: max(0, length - suffix), last: length - 1)
        case (let first?, nil) where end.isEmpty:
            return first < length ? .range(first: first, last: length - 1) : .unsatisfiable
        case (let first?, let last?) where first <= last:
            return first < length ? .range(first: first, last: min(last, length - 1)) : .unsatisfiable
        default:
            return .none
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
