#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import Testing
@testable import SwgetKit

/// A download's knowledge of its bytes as a value: the plan for the next request, the verdict
/// on an answer, checkpoint timing and segment maps.
@Suite("Download state (pure)")
struct DownloadStateTests {
    static let url = URL(string: "http://h.example/f")!
    static let strong = "\"v1\""
    static let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    static func stored(bytes: Int64 = 1000, etag: String? = strong, modified: String? = nil, length: Int64? = 5000,
                       unvalidated: Bool = false, segments: [ByteRange]? = nil) -> ResumeData {
        var data = ResumeData(originalURL: url.absoluteString, finalURL: url.absoluteString, etag: etag, lastModified: modified,
                              expectedLength: length, bytesOnDisk: bytes, partPath: "/d/f.part", finalPath: "/d/f")
        data.acceptsUnvalidatedRange = unvalidated
        data.segments = segments
        return data
    }

    static func response(_ status: Int, _ headers: [(String, String)] = [], length: Int64? = nil,
                         url: URL = DownloadStateTests.url) -> Response {
        Response(url: url, statusCode: status, headers: HeaderFields(headers), expectedContentLength: length)
    }

    typealias P = ResumeNegotiation.HeaderPair
    static func range(_ offset: Int64, ifRange: String? = nil) -> [P] {
        [P(name: "Range", value: "bytes=\(offset)-"), P(name: "Accept-Encoding", value: "identity")]
            + (ifRange.map { [P(name: "If-Range", value: $0)] } ?? [])
    }

    // MARK: - plans

    struct PlanCase: CustomTestStringConvertible, Sendable {
        let name: String
        let resume: ResumeData?
        var toStandardOutput = false
        let plan: DownloadState.Plan
        /// The bytes the state still claims after planning.
        let bytesAfter: Int64?
        var testDescription: String { name }
    }

    static let plans: [PlanCase] = [
        PlanCase(name: "fresh: nothing known", resume: nil, plan: .fresh(truncate: false), bytesAfter: nil),
        PlanCase(name: "strong ETag", resume: stored(), plan: .resume(offset: 1000, fields: range(1000, ifRange: strong)), bytesAfter: 1000),
        PlanCase(name: "Last-Modified only", resume: stored(etag: nil, modified: date),
                 plan: .resume(offset: 1000, fields: range(1000, ifRange: date)), bytesAfter: 1000),
        PlanCase(name: "weak ETag and Last-Modified: the date", resume: stored(etag: "W/\"w\"", modified: date),
                 plan: .resume(offset: 1000, fields: range(1000, ifRange: date)), bytesAfter: 1000),
        PlanCase(name: "length only", resume: stored(etag: nil), plan: .resume(offset: 1000, fields: range(1000)), bytesAfter: 1000),
        PlanCase(name: "-c on a foreign part: no validator, no length", resume: stored(etag: nil, length: nil, unvalidated: true),
                 plan: .resume(offset: 1000, fields: range(1000)), bytesAfter: 1000),
        PlanCase(name: "nothing to validate with: start over, emptying the part", resume: stored(etag: nil, length: nil),
                 plan: .fresh(truncate: true), bytesAfter: 0),
        PlanCase(name: "no bytes held", resume: stored(bytes: 0), plan: .fresh(truncate: true), bytesAfter: 0),
        PlanCase(name: "stdout, validated: the rest is appended", resume: stored(), toStandardOutput: true,
                 plan: .resume(offset: 1000, fields: range(1000, ifRange: strong)), bytesAfter: 1000),
        PlanCase(name: "stdout, nothing to validate with: bytes already out cannot be taken back",
                 resume: stored(etag: nil, length: nil), toStandardOutput: true,
                 plan: .impossible(reason: "cannot continue a transfer to standard output without validators"), bytesAfter: 1000),
        PlanCase(name: "stdout, nothing written yet", resume: stored(bytes: 0, etag: nil, length: nil), toStandardOutput: true,
                 plan: .fresh(truncate: true), bytesAfter: 0),
        PlanCase(name: "segments beyond a hole at 0", resume: stored(bytes: 0, segments: [ByteRange(start: 2000, end: 3000)]),
                 plan: .resume(offset: 0, fields: range(0, ifRange: strong)), bytesAfter: 0),
    ]

    @Test(arguments: plans)
    func plan(_ c: PlanCase) {
        var state = DownloadState()
        state.resume = c.resume
        #expect(state.plan(toStandardOutput: c.toStandardOutput) == c.plan)
        #expect(state.resume?.bytesOnDisk == c.bytesAfter)
        if case .fresh(truncate: true) = c.plan { #expect(state.resume?.segments == nil) }
        #expect(state.requestedOffset == {
            if case .resume(let offset, _) = c.plan { return offset }
            return nil
        }())
    }

    // MARK: - verdicts

    struct JudgeCase: CustomTestStringConvertible, Sendable {
        let name: String
        let resume: ResumeData?
        let response: Response
        var toStandardOutput = false
        let verdict: DownloadState.Verdict
        /// What the state holds afterwards: bytes, ETag, length (nil resume: "none").
        let after: String
        let restarts: Bool
        var testDescription: String { name }
    }

    static func describe(_ data: ResumeData?) -> String {
        guard let data else { return "none" }
        return "\(data.bytesOnDisk) bytes, etag \(data.etag ?? "-"), length \(data.expectedLength.map(String.init) ?? "-")"
    }

    static let judgements: [JudgeCase] = [
        JudgeCase(name: "fresh 200 records its validators", resume: nil,
                  response: response(200, [("ETag", "\"n\""), ("Content-Length", "7")], length: 7),
                  verdict: .write(from: 0), after: "0 bytes, etag \"n\", length 7", restarts: false),
        JudgeCase(name: "fresh 200 of unknown length", resume: nil, response: response(200),
                  verdict: .write(from: 0), after: "0 bytes, etag -, length -", restarts: false),
        JudgeCase(name: "fresh 404 records nothing", resume: nil, response: response(404, [("ETag", "\"e\"")], length: 10),
                  verdict: .write(from: 0), after: "none", restarts: false),
        JudgeCase(name: "206 at the right offset appends", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000")], length: 4000),
                  verdict: .write(from: 1000), after: "1000 bytes, etag \"v1\", length 5000", restarts: false),
        JudgeCase(name: "206 with a repeated ETag", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000"), ("ETag", strong)], length: 4000),
                  verdict: .write(from: 1000), after: "1000 bytes, etag \"v1\", length 5000", restarts: false),
        JudgeCase(name: "206 validated by length only", resume: stored(etag: nil),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000")], length: 4000),
                  verdict: .write(from: 1000), after: "1000 bytes, etag -, length 5000", restarts: false),
        JudgeCase(name: "206 at the wrong offset: ask again", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 0-4999/5000")], length: 5000),
                  verdict: .restart(reason: "the server resumed at byte 0, not 1000"), after: "none", restarts: false),
        JudgeCase(name: "206 with a changed ETag: ask again", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "\"v2\"")], length: 4000),
                  verdict: .restart(reason: "the file changed (new ETag)"), after: "none", restarts: false),
        JudgeCase(name: "206 with a changed Last-Modified: ask again", resume: stored(etag: nil, modified: date),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000"), ("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT")]),
                  verdict: .restart(reason: "the file changed (new Last-Modified)"), after: "none", restarts: false),
        JudgeCase(name: "206 with a changed length: ask again", resume: stored(etag: nil),
                  response: response(206, [("Content-Range", "bytes 1000-5999/6000")], length: 5000),
                  verdict: .restart(reason: "the file's length changed (5000 → 6000)"), after: "none", restarts: false),
        JudgeCase(name: "200 to a range: the whole file replaces the bytes", resume: stored(),
                  response: response(200, [("ETag", "\"v2\"")], length: 6000),
                  verdict: .write(from: 0), after: "0 bytes, etag \"v2\", length 6000", restarts: true),
        JudgeCase(name: "200 to a range without validators forgets the old ones", resume: stored(modified: date),
                  response: response(200, [], length: 6000),
                  verdict: .write(from: 0), after: "0 bytes, etag -, length 6000", restarts: true),
        JudgeCase(name: "416 with our length: complete", resume: stored(bytes: 5000),
                  response: response(416, [("Content-Range", "bytes */5000")]),
                  verdict: .complete, after: "5000 bytes, etag \"v1\", length 5000", restarts: false),
        JudgeCase(name: "416 with another length: ask again", resume: stored(bytes: 5000),
                  response: response(416, [("Content-Range", "bytes */4000")]),
                  verdict: .restart(reason: "the server cannot serve byte 5000 (file shorter now?)"), after: "none", restarts: false),
        JudgeCase(name: "stdout: 200 to a range cannot restart", resume: stored(), response: response(200, [], length: 5000),
                  toStandardOutput: true,
                  verdict: .fail(reason: "the file changed on the server; cannot restart a transfer to standard output"),
                  after: "1000 bytes, etag \"v1\", length 5000", restarts: false),
        JudgeCase(name: "stdout: a changed validator cannot restart", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "\"v2\"")]), toStandardOutput: true,
                  verdict: .fail(reason: "the file changed (new ETag); cannot restart a transfer to standard output"),
                  after: "1000 bytes, etag \"v1\", length 5000", restarts: false),
        JudgeCase(name: "stdout: 206 at the right offset appends", resume: stored(),
                  response: response(206, [("Content-Range", "bytes 1000-4999/5000")]), toStandardOutput: true,
                  verdict: .write(from: 1000), after: "1000 bytes, etag \"v1\", length 5000", restarts: false),
    ]

    @Test(arguments: judgements)
    func judge(_ c: JudgeCase) {
        var state = DownloadState()
        state.resume = c.resume
        _ = state.plan(toStandardOutput: c.toStandardOutput)
        let verdict = state.judge(c.response, originalURL: Self.url, sessionIdentifier: "bg", toStandardOutput: c.toStandardOutput)
        #expect(verdict == c.verdict)
        #expect(Self.describe(state.resume) == c.after)
        if case .write(let offset) = verdict {
            // Only a body written from 0 over held bytes is a restart (worth a `restarted` event).
            #expect(state.restartsHeldBytes == c.restarts)
            #expect(state.writeOffset == offset)
        }
        if case .restart = verdict {
            // The next plan starts from zero.
            #expect(state.plan(toStandardOutput: false) == .fresh(truncate: false))
        }
    }

    @Test("an error status to a range does not restart the held bytes")
    func errorStatusToARange() {
        var state = DownloadState()
        state.resume = Self.stored()
        _ = state.plan(toStandardOutput: false)
        let verdict = state.judge(Self.response(404, [], length: 120), originalURL: Self.url, sessionIdentifier: nil,
                                  toStandardOutput: false)
        #expect(verdict == .write(from: 0))
        #expect(Self.describe(state.resume) == "1000 bytes, etag \"v1\", length 5000")
        // A 404 does not restart the held bytes (with `-c` on the user's own file it used to
        // take the restart path and report success).
        #expect(!state.restartsHeldBytes)
    }

    @Test("a fresh answer records where it came from and how it is coded")
    func recordsOrigin() throws {
        var state = DownloadState()
        _ = state.plan(toStandardOutput: false)
        let final = URL(string: "https://mirror.example/f")!
        _ = state.judge(Self.response(200, [("Content-Encoding", "GZIP"), ("Last-Modified", Self.date)], length: 10, url: final),
                        originalURL: URL(string: "http://user:secret@h.example/f")!, sessionIdentifier: "bg", toStandardOutput: false)
        let data = try #require(state.resume)
        #expect(!data.originalURL.contains("secret"))
        #expect(data.finalURL == "https://mirror.example/f")
        #expect(data.contentEncoding == "gzip")
        #expect(data.lastModified == Self.date)
        #expect(data.sessionIdentifier == "bg")
    }

    @Test("a resumed answer keeps the stored coding and segments; a restarted one clears them")
    func appendKeepsSegments() {
        var state = DownloadState()
        var stored = Self.stored(segments: [ByteRange(start: 0, end: 1000), ByteRange(start: 3000, end: 4000)])
        stored.contentEncoding = "gzip"
        state.resume = stored
        _ = state.plan(toStandardOutput: false)
        _ = state.judge(Self.response(206, [("Content-Range", "bytes 1000-4999/5000"), ("Content-Encoding", "gzip")]),
                        originalURL: Self.url, sessionIdentifier: nil, toStandardOutput: false)
        #expect(state.resume?.segments?.count == 2)
        #expect(state.resume?.contentEncoding == "gzip")

        var restarted = DownloadState()
        restarted.resume = stored
        _ = restarted.plan(toStandardOutput: false)
        _ = restarted.judge(Self.response(200, [], length: 5000), originalURL: Self.url, sessionIdentifier: nil, toStandardOutput: false)
        #expect(restarted.resume?.segments == nil)
        #expect(restarted.resume?.contentEncoding == nil)
    }

    /// A segment map whose first piece is still empty continues from byte 0: the validated 206
    /// from 0 must keep the ranges held further on, or the download fetches them again. (Found
    /// by SegmentedDownloadTests under load: a cancel before the first connection's first byte.)
    @Test("a range answer from byte 0 keeps the segments held further on")
    func appendFromZeroKeepsSegments() {
        var state = DownloadState()
        let held = [ByteRange(start: 2000, end: 3000), ByteRange(start: 4000, end: 4500)]
        state.resume = Self.stored(bytes: 0, segments: held)
        guard case .resume(0, _) = state.plan(toStandardOutput: false) else {
            Issue.record("a map with held ranges is continued with a range from 0")
            return
        }
        let verdict = state.judge(Self.response(206, [("Content-Range", "bytes 0-4999/5000"), ("ETag", Self.strong)]),
                                  originalURL: Self.url, sessionIdentifier: nil, toStandardOutput: false)
        #expect(verdict == .write(from: 0))
        #expect(state.resume?.segments == held)
        #expect(state.resume?.etag == Self.strong)
        #expect(state.resume?.expectedLength == 5000)
    }

    // MARK: - checkpoints

    static let t0: UInt64 = 5_000_000_000_000
    static func at(_ ms: Int64) -> NIODeadline { .uptimeNanoseconds(t0 + UInt64(ms) * 1_000_000) }
    static let kib: Int64 = 1024
    static let mib: Int64 = 1 << 20

    struct CheckpointCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// (total bytes, at ms) → checkpoint due?
        let steps: [(Int64, Int64, Bool)]
        var testDescription: String { name }
    }

    static let checkpoints: [CheckpointCase] = [
        CheckpointCase(name: "the first after 256 KiB", steps: [(1, 10, false), (256 * kib - 1, 20, false), (256 * kib, 30, true)]),
        CheckpointCase(name: "the first after a second", steps: [(100, 500, false), (200, 999, false), (300, 1000, true)]),
        CheckpointCase(name: "then after 64 MiB", steps: [(256 * kib, 10, true), (256 * kib + 64 * mib - 1, 20, false),
                                                          (256 * kib + 64 * mib, 30, true), (256 * kib + 64 * mib + 1, 40, false)]),
        CheckpointCase(name: "then after a second", steps: [(256 * kib, 10, true), (300 * kib, 1009, false), (301 * kib, 1010, true),
                                                            (302 * kib, 2009, false), (303 * kib, 2010, true)]),
        CheckpointCase(name: "no new bytes, no checkpoint", steps: [(256 * kib, 10, true), (256 * kib, 5000, false)]),
        CheckpointCase(name: "a small file finishes without one", steps: [(10 * kib, 5, false), (100 * kib, 50, false)]),
    ]

    @Test(arguments: checkpoints)
    func checkpoint(_ c: CheckpointCase) throws {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 0)
        state.startedFile(now: Self.at(0))
        for (index, (total, ms, due)) in c.steps.enumerated() {
            let saved = state.progressed(to: total, now: Self.at(ms), checkpoints: true)
            #expect((saved != nil) == due, "step \(index): \(total) bytes at \(ms) ms")
            #expect(saved.map { $0.bytesOnDisk == total } ?? true)
            #expect(state.resume?.bytesOnDisk == total)
        }
    }

    @Test("without checkpoints the bytes are counted and nothing is saved")
    func checkpointsOff() {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 0)
        state.startedFile(now: Self.at(0))
        #expect(state.progressed(to: 100 * Self.mib, now: Self.at(5000), checkpoints: false) == nil)
        #expect(state.resume?.bytesOnDisk == 100 * Self.mib)
    }

    @Test("a decoded body is never checkpointed and claims no bytes")
    func decodedBody() {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 500)
        state.startedFile(now: Self.at(0))
        state.chooseDecoding([.gzip])
        #expect(state.resume?.bytesOnDisk == 0)
        #expect(state.progressed(to: 100 * Self.mib, now: Self.at(5000), checkpoints: true) == nil)
        #expect(state.resume?.bytesOnDisk == 0)
        state.chooseDecoding([])
        #expect(state.progressed(to: 100 * Self.mib, now: Self.at(6000), checkpoints: true)?.bytesOnDisk == 100 * Self.mib)
    }

    // MARK: - segment maps

    struct SegmentCase: CustomTestStringConvertible, Sendable {
        let name: String
        let completed: [ByteRange]
        let bytesOnDisk: Int64
        var testDescription: String { name }
    }

    static let segmentCases: [SegmentCase] = [
        SegmentCase(name: "nothing yet", completed: [], bytesOnDisk: 0),
        SegmentCase(name: "a prefix", completed: [ByteRange(start: 0, end: 4096)], bytesOnDisk: 4096),
        SegmentCase(name: "a prefix and more", completed: [ByteRange(start: 0, end: 10), ByteRange(start: 50, end: 60)], bytesOnDisk: 10),
        SegmentCase(name: "a hole at the start", completed: [ByteRange(start: 10, end: 20)], bytesOnDisk: 0),
    ]

    @Test(arguments: segmentCases)
    func segments(_ c: SegmentCase) {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 0)
        state.startedFile(now: Self.at(0))
        let saved = state.segmentsWritten(c.completed, now: Self.at(10), checkpoints: true, force: true)
        #expect(saved?.segments == c.completed)
        #expect(saved?.bytesOnDisk == c.bytesOnDisk)
        #expect(state.resume?.bytesOnDisk == c.bytesOnDisk)
    }

    @Test("segment maps are saved once a second, or when forced, and only with checkpoints")
    func segmentTiming() {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 0)
        state.startedFile(now: Self.at(0))
        let one = [ByteRange(start: 0, end: 10)]
        #expect(state.segmentsWritten(one, now: Self.at(999), checkpoints: true, force: false) == nil)
        #expect(state.segmentsWritten(one, now: Self.at(1000), checkpoints: true, force: false) != nil)
        #expect(state.segmentsWritten(one, now: Self.at(1001), checkpoints: true, force: false) == nil)
        #expect(state.segmentsWritten(one, now: Self.at(1002), checkpoints: true, force: true) != nil)
        #expect(state.segmentsWritten(one, now: Self.at(9000), checkpoints: false, force: true) == nil)
        #expect(state.resume?.segments == one)
    }

    // MARK: - cutting the part

    struct CutCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// The state beside the part (nil: none, or one claiming nothing).
        let onDisk: ResumeData?
        /// The state in memory when the part is cut (nil: thrown away by a restart).
        let inMemory: ResumeData?
        let offset: Int64
        /// What must be written beside the part before the cut (nil: what is there is true).
        let rewrite: (bytes: Int64, segments: [ByteRange]?)?
        var testDescription: String { name }
    }

    static let map = [ByteRange(start: 0, end: 400), ByteRange(start: 900, end: 1500), ByteRange(start: 3000, end: 5000)]

    static let cuts: [CutCase] = [
        CutCase(name: "a new part: nothing on disk claims bytes", onDisk: nil, inMemory: stored(bytes: 0), offset: 0, rewrite: nil),
        CutCase(name: "a restart throws a checkpointed prefix away", onDisk: stored(bytes: 4000), inMemory: nil, offset: 0,
                rewrite: (0, nil)),
        CutCase(name: "a restart throws a checkpointed segment map away", onDisk: stored(bytes: 400, segments: map), inMemory: nil,
                offset: 0, rewrite: (0, nil)),
        CutCase(name: "one connection continues a segment map from its first gap", onDisk: stored(bytes: 400, segments: map),
                inMemory: stored(bytes: 400, segments: map), offset: 400, rewrite: (400, nil)),
        CutCase(name: "continuing a prefix at its end claims nothing new", onDisk: stored(bytes: 4000), inMemory: stored(bytes: 4000),
                offset: 4000, rewrite: nil),
        CutCase(name: "a checkpoint behind the cut stays true", onDisk: stored(bytes: 1000), inMemory: stored(bytes: 4000),
                offset: 2000, rewrite: nil),
        CutCase(name: "a map ending before the cut stays true", onDisk: stored(bytes: 400, segments: [ByteRange(start: 0, end: 400)]),
                inMemory: stored(bytes: 400, segments: [ByteRange(start: 0, end: 400)]), offset: 400, rewrite: nil),
    ]

    /// Cutting the part is a transition of the state: afterwards nothing at or past the cut is
    /// claimed, in memory or (written before the cut) on disk.
    @Test(arguments: cuts)
    func cut(_ c: CutCase) {
        var state = DownloadState()
        state.saved(c.onDisk)
        state.resume = c.inMemory
        let rewrite = state.cut(to: c.offset)
        #expect(rewrite?.bytesOnDisk == c.rewrite?.bytes)
        #expect(rewrite?.segments == nil)
        if let memory = state.resume {
            #expect(memory.segments == nil)
            #expect(memory.bytesOnDisk <= c.offset)
        }
        // Once written, the state on disk is true: a second cut at the same place writes nothing.
        if let rewrite { state.saved(rewrite) }
        #expect(state.cut(to: c.offset) == nil)
    }

    @Test("after a cut, checkpoints count again from the cut")
    func checkpointsAfterACut() {
        var state = DownloadState()
        state.resume = Self.stored(bytes: 0)
        state.startedFile(now: Self.at(0))
        let first = state.progressed(to: 300 * 1024, now: Self.at(10), checkpoints: true)
        #expect(first?.bytesOnDisk == Int64(300 * 1024))
        _ = state.cut(to: 0)
        let early = state.progressed(to: 100 * 1024, now: Self.at(20), checkpoints: true)
        #expect(early == nil)
        let again = state.progressed(to: 300 * 1024, now: Self.at(30), checkpoints: true)
        #expect(again?.bytesOnDisk == Int64(300 * 1024))
    }
}
