/// A half-open range of byte offsets `[start, end)` inside one file.
public struct ByteRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first byte of the range.
    public var start: Int64
    /// One past the last byte (exclusive).
    public var end: Int64

    /// A range `[start, end)`; an `end` before `start` makes an empty range at `start`.
    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = max(start, end)
    }

    private enum CodingKeys: String, CodingKey { case start, end }

    /// Decodes a range, refusing an inverted or negative one (input from a state file).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Int64.self, forKey: .start)
        let end = try container.decode(Int64.self, forKey: .end)
        guard start >= 0, start <= end else {
            throw DecodingError.dataCorruptedError(forKey: .end, in: container, debugDescription: "invalid byte range \(start)-\(end)")
        }
        self.start = start
        self.end = end
    }

    /// The number of bytes in the range (0 when empty).
    public var count: Int64 { end - start }

    /// `[start, end)`, as in log messages and test failures.
    public var description: String { "[\(start), \(end))" }
}

/// The segment planner of a segmented download (`--split N`): which bytes of one file of known
/// length each of up to N connections fetches into the shared `.part` file, with work stealing.
///
/// A pure value: the download driver calls it from one place (an actor or one event loop) and
/// does the I/O. Every byte of `[0, length)` is, at every moment, in exactly one of:
/// - `completed`: written to the `.part` file (merged and sorted; the resume state stores it);
/// - `inFlight[worker]`: assigned to one worker and not yet received (its remainder);
/// - `unassigned`: waiting in the pool for a worker (sorted, disjoint pieces).
///
/// Work is handed out by `assign(worker:)`: first the pool's pieces (the missing space split into
/// up to N roughly equal pieces of at least `minimumSegment` bytes, except gaps left by `done`
/// that are smaller than that), then, once the pool is empty, half of the largest in-flight
/// remainder (work stealing), only when that half is at least `minimumSegment` bytes. The victim
/// keeps its open request and stops at its new `currentEnd(of:)`.
///
/// Encoding stores only what outlives the process (`length`, `connections`, `minimumSegment`,
/// `completed`); decoding plans the missing bytes afresh, so in-flight work of a killed process
/// returns to the pool.
struct SegmentPlan: Sendable, Equatable, Codable {
    /// The file's length in bytes.
    public let length: Int64
    /// The most connections the initial split is made for (≥ 1).
    public let connections: Int
    /// The smallest segment the plan creates by splitting (≥ 1), `--min-split-size`.
    public let minimumSegment: Int64
    /// The bytes written so far: sorted, disjoint, non-adjacent (merged) ranges.
    public private(set) var completed: [ByteRange]
    /// The pool of pieces waiting for a worker: sorted, disjoint, never empty pieces.
    public private(set) var unassigned: [ByteRange]
    /// Each busy worker's remainder: the bytes assigned to it and not yet received. It may be
    /// empty between the last `received` and `finished`.
    public private(set) var inFlight: [Int: ByteRange] = [:]

    /// Plans a file of `length` bytes over up to `connections` connections. `done` are ranges
    /// already on disk (from the resume state; any order, may overlap, clipped to the file);
    /// only the missing bytes are planned. Out-of-range parameters are clamped (a negative
    /// length to 0, fewer than one connection to one, a segment size below one byte to one).
    public init(length: Int64, connections: Int, minimumSegment: Int64 = 1 << 20, done: [ByteRange] = []) {
        self.length = max(0, length)
        self.connections = max(1, connections)
        self.minimumSegment = max(1, minimumSegment)
        var merged: [ByteRange] = []
        for range in done {
            let clipped = ByteRange(start: max(0, min(range.start, length)), end: max(0, min(range.end, length)))
            if clipped.count > 0 { Self.insert(clipped, into: &merged) }
        }
        completed = merged
        unassigned = Self.split(gaps: Self.gaps(in: length, around: merged), connections: connections,
                                minimumSegment: minimumSegment)
    }

    /// The bytes not yet written.
    public var remainingBytes: Int64 { length - completed.reduce(0) { $0 + $1.count } }

    /// Whether every byte is written.
    public var isComplete: Bool { remainingBytes == 0 }

    /// The end (exclusive) up to which `worker` must fetch, or nil when it holds no segment.
    /// It moves down when another worker steals from it: the worker's connection stops writing
    /// at this offset (and closes) even though its HTTP range request asked for more.
    public func currentEnd(of worker: Int) -> Int64? { inFlight[worker]?.end }

    /// Gives `worker` (which must hold no segment) a range to fetch, or nil when nothing is left
    /// worth taking. The pool's first piece comes first; with the pool empty, the worker steals
    /// the upper half of the largest in-flight remainder when that half is ≥ `minimumSegment`
    /// (the victim keeps the lower half, which is at least as large).
    public mutating func assign(worker: Int) -> ByteRange? {
        precondition(inFlight[worker] == nil, "worker \(worker) already holds a segment")
        if !unassigned.isEmpty {
            let piece = unassigned.removeFirst()
            inFlight[worker] = piece
            return piece
        }
        // Largest remainder; ties go to the lowest worker id so the plan is deterministic.
        guard let (victim, remainder) = inFlight.max(by: { a, b in
            a.value.count != b.value.count ? a.value.count < b.value.count : a.key > b.key
        }) else { return nil }
        let half = remainder.count / 2
        guard half >= minimumSegment else { return nil }
        let stolen = ByteRange(start: remainder.end - half, end: remainder.end)
        inFlight[victim]?.end = stolen.start
        inFlight[worker] = stolen
        return stolen
    }

    /// Records that `worker` has written its segment's bytes up to `offset` (exclusive). Offsets
    /// past its current end are clamped (bytes written past a stolen boundary are the thief's),
    /// offsets already recorded and unknown workers are ignored.
    public mutating func received(worker: Int, upTo offset: Int64) {
        guard let remainder = inFlight[worker], offset > remainder.start else { return }
        let upTo = min(offset, remainder.end)
        Self.insert(ByteRange(start: remainder.start, end: upTo), into: &completed)
        inFlight[worker]?.start = upTo
    }

    /// Records that `worker` has written its whole segment, up to `currentEnd(of:)`, and frees it.
    public mutating func finished(worker: Int) {
        guard let remainder = inFlight.removeValue(forKey: worker) else { return }
        if remainder.count > 0 { Self.insert(remainder, into: &completed) }
    }

    /// Records that `worker`'s connection failed: its unreceived remainder returns to the pool,
    /// to be assigned again. Bytes already `received` stay completed.
    public mutating func failed(worker: Int) {
        guard let remainder = inFlight.removeValue(forKey: worker), remainder.count > 0 else { return }
        let index = unassigned.firstIndex { $0.start > remainder.start } ?? unassigned.endIndex
        unassigned.insert(remainder, at: index)
    }

    // MARK: - Planning helpers

    /// The holes of `[0, length)` around the sorted, merged `ranges`.
    static func gaps(in length: Int64, around ranges: [ByteRange]) -> [ByteRange] {
        var gaps: [ByteRange] = []
        var cursor: Int64 = 0
        for range in ranges {
            if range.start > cursor { gaps.append(ByteRange(start: cursor, end: range.start)) }
            cursor = range.end
        }
        if cursor < length { gaps.append(ByteRange(start: cursor, end: length)) }
        return gaps
    }

    /// Splits each gap into equal pieces (sizes differ by at most one byte): one piece per gap,
    /// then, while there are fewer than `connections` pieces, one more piece for the gap whose
    /// pieces are largest, as long as its pieces stay ≥ `minimumSegment`.
    static func split(gaps: [ByteRange], connections: Int, minimumSegment: Int64) -> [ByteRange] {
        var counts = Array(repeating: Int64(1), count: gaps.count)
        var total = gaps.count
        while total < connections {
            let sizes = gaps.indices.map { gaps[$0].count / counts[$0] }
            guard let best = sizes.indices.max(by: { sizes[$0] < sizes[$1] || (sizes[$0] == sizes[$1] && $0 > $1) }),
                  gaps[best].count / (counts[best] + 1) >= minimumSegment else { break }
            counts[best] += 1
            total += 1
        }
        var pieces: [ByteRange] = []
        for (gap, count) in zip(gaps, counts) {
            let base = gap.count / count, extra = gap.count % count
            var start = gap.start
            for index in 0..<count {
                let end = start + base + (index < extra ? 1 : 0)
                pieces.append(ByteRange(start: start, end: end))
                start = end
            }
        }
        return pieces
    }

    /// Inserts a non-empty `range` into sorted, merged `ranges`, merging it with every range it
    /// overlaps or touches.
    static func insert(_ range: ByteRange, into ranges: inout [ByteRange]) {
        var merged = range
        let index = ranges.firstIndex { $0.end >= range.start } ?? ranges.endIndex
        while index < ranges.endIndex, ranges[index].start <= merged.end {
            merged = ByteRange(start: min(merged.start, ranges[index].start), end: max(merged.end, ranges[index].end))
            ranges.remove(at: index)
        }
        ranges.insert(merged, at: index)
    }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey {
        case length, connections, minimumSegment, completed
    }

    /// Replans the missing bytes of a stored plan; in-flight work is not stored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let length = try container.decode(Int64.self, forKey: .length)
        let connections = try container.decode(Int.self, forKey: .connections)
        let minimumSegment = try container.decode(Int64.self, forKey: .minimumSegment)
        let completed = try container.decode([ByteRange].self, forKey: .completed)
        guard length >= 0, connections >= 1, minimumSegment >= 1, completed.allSatisfy({ $0.start <= $0.end }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid segment plan"))
        }
        self.init(length: length, connections: connections, minimumSegment: minimumSegment, done: completed)
    }

    /// Stores the durable part of the plan: its parameters and `completed`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(length, forKey: .length)
        try container.encode(connections, forKey: .connections)
        try container.encode(minimumSegment, forKey: .minimumSegment)
        try container.encode(completed, forKey: .completed)
    }
}
