#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The segment planner of `--split`: initial split, work stealing, failures, resume, invariants.
@Suite("Segment plan (pure)")
struct SegmentPlanTests {
    static let mib: Int64 = 1 << 20
    static let gib: Int64 = 1 << 30

    // MARK: - Initial split

    struct SplitCase: CustomTestStringConvertible, Sendable {
        let length: Int64
        let connections: Int
        var minimum: Int64 = SegmentPlanTests.mib
        let pieces: Int
        var testDescription: String { "\(length) bytes, \(connections) connections, min \(minimum) → \(pieces)" }
    }

    static let splitCases: [SplitCase] = [
        SplitCase(length: 0, connections: 1, pieces: 0),
        SplitCase(length: 0, connections: 8, pieces: 0),
        SplitCase(length: 1, connections: 1, pieces: 1),
        SplitCase(length: 1, connections: 16, pieces: 1),
        SplitCase(length: mib - 1, connections: 8, pieces: 1),
        SplitCase(length: mib, connections: 16, pieces: 1),
        SplitCase(length: mib + 1, connections: 2, pieces: 1),
        SplitCase(length: 2 * mib - 1, connections: 2, pieces: 1),
        SplitCase(length: 2 * mib, connections: 2, pieces: 2),
        SplitCase(length: 10 * mib, connections: 1, pieces: 1),
        SplitCase(length: 10 * mib, connections: 2, pieces: 2),
        SplitCase(length: 10 * mib, connections: 8, pieces: 8),
        SplitCase(length: 10 * mib, connections: 16, pieces: 10),
        SplitCase(length: 10 * mib, connections: 100, pieces: 10),
        SplitCase(length: 10 * mib + 7, connections: 3, pieces: 3),
        SplitCase(length: gib, connections: 1, pieces: 1),
        SplitCase(length: gib, connections: 8, pieces: 8),
        SplitCase(length: gib, connections: 16, pieces: 16),
        SplitCase(length: gib, connections: 100, pieces: 100),
        SplitCase(length: gib + 12_345, connections: 7, pieces: 7),
        SplitCase(length: gib, connections: 8, minimum: gib, pieces: 1),
        SplitCase(length: 100, connections: 100, minimum: 1, pieces: 100),
        SplitCase(length: 99, connections: 100, minimum: 1, pieces: 99),
        SplitCase(length: 10, connections: 8, minimum: 3, pieces: 3),
        SplitCase(length: 1_000_003, connections: 16, minimum: 4096, pieces: 16),
        SplitCase(length: 1_000_003, connections: 1000, minimum: 4096, pieces: 244),
    ]

    /// The pool starts as `pieces` contiguous, near-equal pieces covering the file, each at least
    /// the minimum (unless there is only one); the next worker steals only when half of the
    /// largest piece is big enough.
    @Test("initial split", arguments: splitCases)
    func initialSplit(_ c: SplitCase) {
        var plan = SegmentPlan(length: c.length, connections: c.connections, minimumSegment: c.minimum)
        #expect(plan.completed.isEmpty)
        #expect(plan.remainingBytes == c.length)
        #expect(plan.isComplete == (c.length == 0))
        #expect(plan.unassigned.count == c.pieces)
        var assigned: [ByteRange] = []
        while !plan.unassigned.isEmpty, let range = plan.assign(worker: assigned.count) { assigned.append(range) }
        #expect(assigned.count == c.pieces)
        #expect(assigned.reduce(Int64(0)) { $0 + $1.count } == c.length)
        #expect(zip(assigned, assigned.dropFirst()).allSatisfy { $0.end == $1.start })
        #expect(assigned.first.map { $0.start == 0 } ?? true)
        let sizes = assigned.map(\.count)
        if let smallest = sizes.min(), let largest = sizes.max() {
            #expect(largest - smallest <= 1)
            #expect(c.pieces == 1 || smallest >= c.minimum)
        }
        #expect(checkInvariants(plan) == nil)
        let stolen = plan.assign(worker: assigned.count)
        #expect((stolen != nil) == ((sizes.max() ?? 0) / 2 >= c.minimum))
        #expect(checkInvariants(plan) == nil)
    }

    // MARK: - Stealing, failures

    /// Two workers: the fast one finishes and steals the upper half of the other's remainder.
    @Test func stealsHalfOfTheLargestRemainder() {
        let m = Self.mib
        var plan = SegmentPlan(length: 8 * m, connections: 2, minimumSegment: m)
        #expect(plan.assign(worker: 0) == ByteRange(start: 0, end: 4 * m))
        #expect(plan.assign(worker: 1) == ByteRange(start: 4 * m, end: 8 * m))
        plan.received(worker: 1, upTo: 5 * m)
        plan.received(worker: 0, upTo: 4 * m)
        plan.finished(worker: 0)
        #expect(plan.completed == [ByteRange(start: 0, end: 5 * m)])
        // Remainder [5, 8) MiB: the thief takes [6.5, 8), the victim now stops at 6.5 MiB.
        #expect(plan.assign(worker: 0) == ByteRange(start: 6 * m + m / 2, end: 8 * m))
        #expect(plan.currentEnd(of: 1) == 6 * m + m / 2)
        #expect(plan.currentEnd(of: 0) == 8 * m)
        #expect(plan.inFlight[1] == ByteRange(start: 5 * m, end: 6 * m + m / 2))
        // Remainders of 1.5 MiB: halves of 0.75 MiB are below the minimum, nothing to steal.
        #expect(plan.assign(worker: 2) == nil)
        // The victim wrote past its new end before it noticed: the excess is clamped, not counted.
        plan.received(worker: 1, upTo: 7 * m)
        #expect(plan.inFlight[1] == ByteRange(start: 6 * m + m / 2, end: 6 * m + m / 2))
        plan.finished(worker: 1)
        plan.received(worker: 0, upTo: 8 * m)
        plan.finished(worker: 0)
        #expect(plan.isComplete)
        #expect(plan.completed == [ByteRange(start: 0, end: 8 * m)])
        #expect(plan.assign(worker: 0) == nil)
        #expect(checkInvariants(plan) == nil)
    }

    /// Among equal remainders the lowest worker id is the victim, so plans are reproducible.
    @Test func stealingIsDeterministic() {
        var plan = SegmentPlan(length: 4 * Self.mib, connections: 4, minimumSegment: 1)
        for worker in [3, 1, 2, 0] { _ = plan.assign(worker: worker) }
        let pieceOfWorker0 = plan.inFlight[0]!
        let stolen = plan.assign(worker: 9)
        #expect(stolen?.end == pieceOfWorker0.end)
        #expect(plan.currentEnd(of: 0) == stolen?.start)
    }

    /// A connection dies mid-segment: what it wrote stays, the rest goes back to the pool and is
    /// the next piece handed out, before any stealing.
    @Test func failedWorkerReturnsItsRemainder() {
        let m = Self.mib
        var plan = SegmentPlan(length: 4 * m, connections: 2, minimumSegment: m)
        _ = plan.assign(worker: 0)
        _ = plan.assign(worker: 1)
        plan.received(worker: 0, upTo: m / 2)
        plan.failed(worker: 0)
        #expect(plan.completed == [ByteRange(start: 0, end: m / 2)])
        #expect(plan.unassigned == [ByteRange(start: m / 2, end: 2 * m)])
        #expect(plan.currentEnd(of: 0) == nil)
        #expect(checkInvariants(plan) == nil)
        #expect(plan.assign(worker: 7) == ByteRange(start: m / 2, end: 2 * m))
        plan.received(worker: 7, upTo: 2 * m)
        plan.finished(worker: 7)
        plan.received(worker: 1, upTo: 4 * m)
        plan.finished(worker: 1)
        #expect(plan.isComplete)
        #expect(plan.remainingBytes == 0)
    }

    /// Late or stray reports change nothing.
    @Test func strayReportsAreIgnored() {
        var plan = SegmentPlan(length: 100, connections: 1, minimumSegment: 10)
        plan.received(worker: 5, upTo: 50)
        plan.finished(worker: 5)
        plan.failed(worker: 5)
        _ = plan.assign(worker: 0)
        plan.received(worker: 0, upTo: 40)
        plan.received(worker: 0, upTo: 30)
        #expect(plan.completed == [ByteRange(start: 0, end: 40)])
        #expect(plan.inFlight[0] == ByteRange(start: 40, end: 100))
        #expect(checkInvariants(plan) == nil)
    }

    // MARK: - Resume

    struct ResumeCase: CustomTestStringConvertible, Sendable {
        let name: String
        let length: Int64
        let connections: Int
        let done: [ByteRange]
        let completed: [ByteRange]
        let pieces: [ByteRange]
        var testDescription: String { name }
    }

    /// `[start, end)` in MiB.
    static func r(_ start: Int64, _ end: Int64) -> ByteRange { ByteRange(start: start * mib, end: end * mib) }

    static let resumeCases: [ResumeCase] = [
        ResumeCase(name: "nothing done", length: 8 * mib, connections: 4, done: [],
                   completed: [], pieces: [r(0, 2), r(2, 4), r(4, 6), r(6, 8)]),
        ResumeCase(name: "holes in the middle", length: 10 * mib, connections: 4, done: [r(0, 2), r(5, 6)],
                   completed: [r(0, 2), r(5, 6)],
                   pieces: [ByteRange(start: 2 * mib, end: 3 * mib + mib / 2), ByteRange(start: 3 * mib + mib / 2, end: 5 * mib),
                            r(6, 8), r(8, 10)]),
        ResumeCase(name: "everything done", length: 10 * mib, connections: 8, done: [r(0, 10)],
                   completed: [r(0, 10)], pieces: []),
        ResumeCase(name: "unsorted, overlapping, touching and out-of-range ranges", length: 10 * mib, connections: 2,
                   done: [r(6, 12), r(1, 3), r(2, 4), ByteRange(start: -5, end: mib), r(4, 5)],
                   completed: [r(0, 5), r(6, 10)], pieces: [r(5, 6)]),
        ResumeCase(name: "small holes stay whole", length: 10 * mib, connections: 8,
                   done: [ByteRange(start: 0, end: 3 * mib - 10), ByteRange(start: 3 * mib, end: 10 * mib - 1)],
                   completed: [ByteRange(start: 0, end: 3 * mib - 10), ByteRange(start: 3 * mib, end: 10 * mib - 1)],
                   pieces: [ByteRange(start: 3 * mib - 10, end: 3 * mib), ByteRange(start: 10 * mib - 1, end: 10 * mib)]),
        ResumeCase(name: "empty done ranges are dropped", length: 4 * mib, connections: 1, done: [r(2, 2), r(5, 6)],
                   completed: [], pieces: [r(0, 4)]),
    ]

    /// A plan resumed from `done` ranges plans only the holes, each split by its share.
    @Test("resume from done ranges", arguments: resumeCases)
    func resume(_ c: ResumeCase) {
        var plan = SegmentPlan(length: c.length, connections: c.connections, done: c.done)
        #expect(plan.completed == c.completed)
        #expect(plan.unassigned == c.pieces)
        #expect(plan.remainingBytes == c.pieces.reduce(0) { $0 + $1.count })
        #expect(plan.isComplete == c.pieces.isEmpty)
        #expect(checkInvariants(plan) == nil)
        var worker = 0
        while let range = plan.assign(worker: worker) {
            plan.received(worker: worker, upTo: range.end)
            plan.finished(worker: worker)
            worker += 1
        }
        #expect(plan.isComplete)
        #expect(plan.completed == (c.length == 0 ? [] : [ByteRange(start: 0, end: c.length)]))
    }

    // MARK: - Codable

    /// The stored form is the durable part; decoding replans the missing bytes.
    @Test func codableRoundTrip() throws {
        let fresh = SegmentPlan(length: 10 * Self.mib + 3, connections: 4, minimumSegment: 4096)
        #expect(try roundTrip(fresh) == fresh)

        var plan = fresh
        for worker in 0..<4 { _ = plan.assign(worker: worker) }
        plan.received(worker: 1, upTo: 3 * Self.mib)
        plan.received(worker: 2, upTo: 6 * Self.mib)
        plan.finished(worker: 0)
        let decoded = try roundTrip(plan)
        #expect(decoded.completed == plan.completed)
        #expect(decoded.inFlight.isEmpty)
        #expect(decoded == SegmentPlan(length: plan.length, connections: 4, minimumSegment: 4096, done: plan.completed))
        #expect(checkInvariants(decoded) == nil)

        let corrupt = Data(#"{"length":-1,"connections":4,"minimumSegment":1,"completed":[]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SegmentPlan.self, from: corrupt) }
        let reversed = Data(#"{"length":9,"connections":1,"minimumSegment":1,"completed":[{"start":5,"end":2}]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SegmentPlan.self, from: reversed) }
    }

    func roundTrip(_ plan: SegmentPlan) throws -> SegmentPlan {
        try JSONDecoder().decode(SegmentPlan.self, from: JSONEncoder().encode(plan))
    }

    // MARK: - Slow connection

    /// The result of a tick simulation: how long it took and who fetched what.
    struct Run {
        var ticks = 0
        var fetched: [Int64]
    }

    /// Workers fetch `speeds[w]` bytes a tick after a `latency`-tick request delay per segment,
    /// stopping at their current end; idle workers ask for work at the start of every tick.
    static func simulate(length: Int64, speeds: [Int64], minimum: Int64, latency: Int) -> Run {
        var plan = SegmentPlan(length: length, connections: speeds.count, minimumSegment: minimum)
        var run = Run(fetched: Array(repeating: 0, count: speeds.count))
        var position: [Int64?] = Array(repeating: nil, count: speeds.count)
        var startsAt = Array(repeating: 0, count: speeds.count)
        while !plan.isComplete {
            run.ticks += 1
            for worker in speeds.indices where position[worker] == nil {
                if let range = plan.assign(worker: worker) {
                    position[worker] = range.start
                    startsAt[worker] = run.ticks + latency
                }
            }
            for worker in speeds.indices {
                guard let at = position[worker], run.ticks >= startsAt[worker], let end = plan.currentEnd(of: worker) else { continue }
                let upTo = min(at + speeds[worker], end)
                run.fetched[worker] += upTo - at
                plan.received(worker: worker, upTo: upTo)
                position[worker] = upTo
                if upTo == end {
                    plan.finished(worker: worker)
                    position[worker] = nil
                }
            }
        }
        return run
    }

    /// 8 connections to a 1 GiB file, one at 1/20 the speed of the others (1,280 vs 64 KiB a
    /// tick), with and without a tick of request latency per segment. Without stealing the slow
    /// connection's eighth alone would take 2,048 ticks; with it the download takes the ideal
    /// (the file over the summed speeds: 117 ticks) plus at most the unavoidable tail — the
    /// slow connection's last remainder, too small to split (< 2 × minimum) — and a few ticks,
    /// and the slow connection fetches about its fair share (1/141 of the file), not 1/8.
    @Test("a slow connection does not hold the download", arguments: [
        (1 << 20, 0), (1 << 20, 1), (256 << 10, 0), (256 << 10, 1), (64 << 10, 0), (64 << 10, 1),
    ] as [(Int64, Int)])
    func slowConnection(minimum: Int64, latency: Int) {
        let fast: Int64 = 1280 << 10, slow: Int64 = 64 << 10
        let speeds = Array(repeating: fast, count: 7) + [slow]
        let length = Self.gib
        let run = Self.simulate(length: length, speeds: speeds, minimum: minimum, latency: latency)
        let total = speeds.reduce(0, +)
        let ideal = Int((length + total - 1) / total)
        let tail = Int(2 * minimum / slow)
        #expect(ideal == 117)
        #expect(run.ticks <= ideal + tail + 10, "ticks \(run.ticks)")
        #expect(run.fetched.reduce(0, +) == length)
        #expect(run.fetched[7] < length / 8 / 10, "slow connection fetched \(run.fetched[7])")
    }

    // MARK: - Randomized invariants

    /// Random files, holes, connection counts and minimums; workers ask, receive (sometimes past
    /// a stolen end), finish, fail and the process "restarts" from the stored plan at random.
    /// The invariants hold after every step and the file always completes.
    @Test("randomized simulation keeps the invariants", arguments: 1...40)
    func randomizedSimulation(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let minimum = [1, 7, 4096, 65_536, Self.mib][Int.random(in: 0..<5, using: &random)]
        let length = [0, 1, minimum - 1, minimum, Int64.random(in: 0...(64 * Self.mib), using: &random)][
            Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 0..<4, using: &random) : 4]
        let connections = Int.random(in: 1...20, using: &random)
        let done: [ByteRange] = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            let start = Int64.random(in: 0...length, using: &random)
            return ByteRange(start: start, end: Int64.random(in: start...length, using: &random))
        }
        var plan = SegmentPlan(length: length, connections: connections, minimumSegment: minimum, done: done)
        #expect(checkInvariants(plan) == nil)
        var position: [Int64?] = Array(repeating: nil, count: connections)
        var previous = plan.completed
        var steps = 0
        while !plan.isComplete && steps < 200_000 {
            steps += 1
            let worker = Int.random(in: 0..<connections, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 1 {
                // The process dies and the rerun starts from the stored plan.
                plan = try roundTrip(plan)
                position = Array(repeating: nil, count: connections)
            } else if let at = position[worker] {
                if roll < 6 {
                    plan.failed(worker: worker)
                    position[worker] = nil
                } else {
                    // The fetcher may write past a boundary moved by a thief; the plan clamps it.
                    let upTo = at + Int64.random(in: 1...max(1, length / 20), using: &random)
                    plan.received(worker: worker, upTo: upTo)
                    position[worker] = upTo
                    if let end = plan.currentEnd(of: worker), upTo >= end {
                        plan.finished(worker: worker)
                        position[worker] = nil
                    }
                }
            } else {
                let poolWasEmpty = plan.unassigned.isEmpty
                if let range = plan.assign(worker: worker) {
                    position[worker] = range.start
                    if poolWasEmpty {
                        let victim = plan.inFlight.first { $0.key != worker && $0.value.end == range.start }
                        #expect(range.count >= minimum, "stolen \(range) below \(minimum)")
                        #expect(victim.map { $0.value.count >= range.count } ?? false, "victim of \(range)")
                    }
                } else if position.allSatisfy({ $0 == nil }) {
                    Issue.record("nothing assigned, nothing in flight, yet \(plan.remainingBytes) bytes missing")
                    return
                }
            }
            if let violation = checkInvariants(plan) ?? checkGrew(from: previous, to: plan.completed) {
                Issue.record("seed \(seed), step \(steps): \(violation)")
                return
            }
            previous = plan.completed
        }
        #expect(plan.isComplete)
        #expect(plan.completed == (length == 0 ? [] : [ByteRange(start: 0, end: length)]))
    }

    // MARK: - Helpers

    /// nil when `completed`, the in-flight remainders and the pool partition `[0, length)`, the
    /// lists are sorted and merged where they should be, and the counters agree.
    func checkInvariants(_ plan: SegmentPlan) -> String? {
        let completed = plan.completed, pool = plan.unassigned
        if completed.contains(where: { $0.count <= 0 }) { return "empty completed range in \(completed)" }
        if zip(completed, completed.dropFirst()).contains(where: { $0.end >= $1.start }) { return "completed not merged: \(completed)" }
        if pool.contains(where: { $0.count <= 0 }) { return "empty pool piece in \(pool)" }
        if zip(pool, pool.dropFirst()).contains(where: { $0.end > $1.start }) { return "pool unsorted or overlapping: \(pool)" }
        let busy = plan.inFlight.values.filter { $0.count > 0 }
        if plan.inFlight.values.contains(where: { $0.count < 0 || $0.start < 0 || $0.end > plan.length }) {
            return "bad in-flight range in \(plan.inFlight)"
        }
        var cursor: Int64 = 0
        for range in (completed + pool + busy).sorted(by: { $0.start < $1.start }) {
            if range.start != cursor { return "\(range.start < cursor ? "overlap" : "hole") at \(cursor): \(range)" }
            cursor = range.end
        }
        if cursor != plan.length { return "cover ends at \(cursor), not \(plan.length)" }
        let written = completed.reduce(Int64(0)) { $0 + $1.count }
        if plan.remainingBytes != plan.length - written { return "remainingBytes \(plan.remainingBytes)" }
        if plan.isComplete != (written == plan.length) { return "isComplete disagrees" }
        return nil
    }

    /// nil when every range of `old` is still inside one range of `new` (writes are never lost).
    func checkGrew(from old: [ByteRange], to new: [ByteRange]) -> String? {
        for range in old where !new.contains(where: { $0.start <= range.start && range.end <= $0.end }) {
            return "completed \(range) was lost: \(new)"
        }
        return nil
    }
}
