import Foundation
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Segmented downloads against the in-process server: several connections, each segment's
/// answer judged, and a file identical to the source whatever the server does.
@Suite("Segmented downloads")
struct SegmentedDownloadTests {
    static let source = randomBytes(1_000_000, seed: 0x5EED)

    static func configuration(segments: Int = 4, background: String? = nil) -> SessionConfiguration {
        var configuration = ResumeTests.fastRetries(background: background)
        configuration.segmentsPerDownload = segments
        configuration.minimumSegmentBytes = 64 * 1024
        return configuration
    }

    static func ranged(_ requests: [TestRequest]) -> [TestRequest] { requests.filter { $0.header("Range") != nil } }

    @Test func segmentsAreFetchedOverSeveralConnectionsAndValidated() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"s1\"").trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }) { server in
            let (path, _) = try await Session(configuration: Self.configuration()).download(request(server.baseURL + "/s.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            let ranged = Self.ranged(server.requests)
            #expect(ranged.count >= 3, "\(server.requests.map { $0.header("Range") ?? "-" })")
            #expect(ranged.allSatisfy { $0.header("If-Range") == "\"s1\"" && $0.header("Accept-Encoding") == "identity" })
            #expect(server.connectionCount >= 4)
        }
        #expect(files(in: dir) == ["s.bin"])
    }

    /// Progress from several connections reaches the delegate as from one driver: one call at a
    /// time (each call sleeps a little, so overlapping calls would be caught), totals that never
    /// go backwards, deltas that add up to them, and the whole file counted by the end.
    @Test func progressOfAllSegmentsReachesTheDelegateOneCallAtATimeInOrder() async throws {
        final class ProgressAudit: SessionDelegate {
            struct State { var inside = 0; var overlaps = 0; var totals: [Int64] = []; var deltas: Int64 = 0 }
            let state = Mutex(State())
            func task(_ task: SessionTask, didEmit event: TaskEvent) async {
                guard case .wroteData(let bytesWritten, let totalBytesWritten, _) = event else { return }
                state.withLock { s in
                    s.inside += 1
                    if s.inside > 1 { s.overlaps += 1 }
                    s.totals.append(totalBytesWritten)
                    s.deltas += bytesWritten
                }
                try? await Task.sleep(for: .milliseconds(2))
                state.withLock { $0.inside -= 1 }
            }
        }
        let dir = try makeTemporaryDirectory()
        let audit = ProgressAudit()
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"s1\"").trickled(bytesPerWrite: 20_000, every: .milliseconds(5))
        }) { server in
            let session = Session(configuration: Self.configuration(), delegate: audit)
            let (path, _) = try await session.download(request(server.baseURL + "/p.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            #expect(Self.ranged(server.requests).count >= 2, "the download really was segmented")
        }
        let state = audit.state.withLock { $0 }
        #expect(state.overlaps == 0, "delegate calls overlapped \(state.overlaps) times")
        #expect(state.totals == state.totals.sorted(), "totals went backwards: \(state.totals)")
        #expect(state.totals.last == Int64(Self.source.count))
        #expect(state.deltas == Int64(Self.source.count), "the deltas add up to the file")
    }

    @Test func aConnectionDyingMidSegmentIsTakenOverByAnother() async throws {
        let counter = ResumeTests.Counter()
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"s1\"")
            // The second ranged request dies after 10 kB.
            if request.header("Range") != nil, counter.next() == 2 { return response.closing(afterBodyBytes: 10_000) }
            return response.trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }) { server in
            let (path, _) = try await Session(configuration: Self.configuration()).download(request(server.baseURL + "/d.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
        }
    }

    /// A server that promises ranges but answers a segment with the whole file: the download
    /// starts over on one connection instead of splicing.
    @Test func aSegmentAnsweredWithTheWholeFileFallsBackToOneConnection() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            TestResponse.ok(Self.source, headers: [("Accept-Ranges", "bytes"), ("ETag", "\"s1\"")])
                .trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }) { server in
            let (path, _) = try await Session(configuration: Self.configuration()).download(request(server.baseURL + "/w.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
        }
    }

    /// The file changes on the server after the first answer: segments carry If-Range, get the
    /// new file whole, and the download restarts with it, never mixing the two.
    @Test func aValidatorChangingBetweenSegmentsRestartsTheDownload() async throws {
        let counter = ResumeTests.Counter()
        let changed = Self.source.map { $0 ^ 0xFF }
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            if counter.next() == 1 {
                return TestResponse.serving(Self.source, to: request, etag: "\"old\"").trickled(bytesPerWrite: 20_000, every: .milliseconds(5))
            }
            return TestResponse.serving(changed, to: request, etag: "\"new\"").trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }) { server in
            let (path, _) = try await Session(configuration: Self.configuration()).download(request(server.baseURL + "/c.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(changed))
        }
        #expect(files(in: dir) == ["c.bin"])
    }

    /// One very slow segment: the others finish and steal from it, so the file does not wait
    /// for the slow connection.
    @Test func aSlowConnectionIsRelievedByWorkStealing() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"s1\"")
            if request.header("Range")?.hasPrefix("bytes=250000-") == true {
                return response.trickled(bytesPerWrite: 2_000, every: .milliseconds(20))  // 100 kB/s
            }
            return response.trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        }) { server in
            let (path, _) = try await Session(configuration: Self.configuration()).download(request(server.baseURL + "/l.bin"), to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(Self.source))
            // 4 initial segments, then steals: more ranged requests than segments.
            #expect(Self.ranged(server.requests).count > 3, "\(server.requests.map { $0.header("Range") ?? "-" })")
        }
    }

    @Test func serversWithoutRangesAndSmallFilesUseOneConnection() async throws {
        let dir = try makeTemporaryDirectory()
        try await withServer({ request in
            request.path == "/small.bin"
                ? TestResponse.serving(Array(Self.source.prefix(100_000)), to: request, etag: "\"s\"")
                : TestResponse.ok(Self.source, headers: [("ETag", "\"n\"")])
        }) { server in
            let session = Session(configuration: Self.configuration())
            let (small, _) = try await session.download(request(server.baseURL + "/small.bin"), to: .directory(dir))
            let (plain, _) = try await session.download(request(server.baseURL + "/plain.bin"), to: .directory(dir))
            #expect(fingerprint(contents(small)) == fingerprint(Array(Self.source.prefix(100_000))))
            #expect(fingerprint(contents(plain)) == fingerprint(Self.source))
            #expect(Self.ranged(server.requests).isEmpty)
        }
    }

    /// The segment map is in the resume data: cancelled midway, the download continues with only
    /// the missing ranges.
    @Test func cancelledSegmentedDownloadResumesOnlyTheMissingRanges() async throws {
        let dir = try makeTemporaryDirectory()
        // The open answer crawls, the ranges flow up to 100 kB each and wait there until the cancel
        // (however slow the machine, the download cannot end first): several ranges are held.
        let gate = BodyGate()
        gate.open(to: 100_000)
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"s1\"")
            return request.header("Range") == nil
                ? response.trickled(bytesPerWrite: 1_000, every: .milliseconds(20))
                : response.trickled(bytesPerWrite: 10_000, every: .milliseconds(10), gate: gate)
        }) { server in
            let data = try await Self.cancelOnceReceived(300_000, url: server.baseURL + "/r.bin", into: dir)
            gate.openFully()
            let segments = try #require(data.segments)
            #expect(segments.count > 1, "\(segments)")
            let held = segments.reduce(Int64(0)) { $0 + $1.count }
            try await Self.resumeAsSecondRun(data, server: server, file: dir + "/r.bin")
            #expect(held >= 300_000 - 100_000)
        }
    }

    /// The same with the first piece still empty at the cancel (what a loaded machine made of
    /// the test above): the map then starts with a gap at byte 0, and the second run, which
    /// asks for a range from 0, must still keep the ranges held further on.
    @Test func aMapWhoseFirstPieceIsEmptyKeepsItsLaterRanges() async throws {
        let dir = try makeTemporaryDirectory()
        // Nothing from byte 0 goes before the cancel: neither the open answer nor, should a
        // loaded machine let its read time out, a retry that asks for a range from 0.
        let opening = BodyGate()
        let ranges = BodyGate()
        ranges.open(to: 100_000)
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"s1\"")
            let range = request.header("Range")
            return range == nil || range?.hasPrefix("bytes=0-") == true
                ? response.trickled(bytesPerWrite: 10_000, every: .milliseconds(10), gate: opening)
                : response.trickled(bytesPerWrite: 10_000, every: .milliseconds(10), gate: ranges)
        }) { server in
            let data = try await Self.cancelOnceReceived(200_000, url: server.baseURL + "/e.bin", into: dir)
            opening.openFully()
            ranges.openFully()
            let segments = try #require(data.segments)
            #expect(data.bytesOnDisk == 0)
            #expect(!segments.contains { $0.start == 0 }, "\(segments)")
            try await Self.resumeAsSecondRun(data, server: server, file: dir + "/e.bin")
        }
    }

    /// Starts a segmented download of `url` into `directory` and cancels it, keeping its resume
    /// data, once `bytes` have arrived.
    static func cancelOnceReceived(_ bytes: Int64, url: String, into directory: String) async throws -> ResumeData {
        let task = Session(configuration: configuration()).downloadTask(with: request(url), destination: .directory(directory))
        task.resume()
        while task.countOfBytesReceived < bytes { try await Task.sleep(for: .milliseconds(5)) }
        return try #require(await task.cancelProducingResumeData())
    }

    /// Continues `data` in a second session, checks the finished `file`, and checks that the
    /// second run asked only for bytes `data` did not hold. The second run is told apart by its
    /// User-Agent: requests of the first may still complete on the server after the cancel.
    static func resumeAsSecondRun(_ data: ResumeData, server: TestServer, file: String) async throws {
        let segments = data.segments ?? []
        var second = configuration()
        second.defaultHeaders.set("User-Agent", "second-run")
        let resumed = Session(configuration: second).downloadTask(withResumeData: data)
        #expect(await resumed.outcome() == nil)
        #expect(fingerprint(contents(file)) == fingerprint(source))
        for request in server.requests where request.header("User-Agent") == "second-run" {
            let range = try #require(request.header("Range"))
            let start = Int64(range.dropFirst(6).split(separator: "-")[0]) ?? -1
            #expect(!segments.contains { $0.start <= start && start < $0.end }, "\(range) was already held: \(segments)")
        }
    }

    /// A kill -9 must find, at every moment, a state that claims only bytes the part holds.
    /// The part holds a checkpointed segment map; its continuation is answered with a wrong
    /// Content-Range, so the download restarts and cuts the part to zero. The state beside the
    /// part must say so before the new request goes out: otherwise a kill once the new
    /// attempt's segments had written here and there would leave the old map to be trusted,
    /// and the rerun would publish zeros (the fault soak's finding, seed 20261127).
    @Test func aRestartRewritesTheStateBeforeTheCutPartGrowsAgain() async throws {
        let dir = try makeTemporaryDirectory()
        let identifier = "cut-test"
        let held: [ByteRange] = [ByteRange(start: 0, end: 200_000), ByteRange(start: 300_000, end: 400_000)]
        var part = Array(Self.source.prefix(400_000))
        for index in 200_000..<300_000 { part[index] = 0 }  // the gap of the map holds nothing yet
        try Data(part).write(to: URL(fileURLWithPath: dir + "/k.bin.part"))
        let gate = BodyGate()  // every answer after the restart waits here
        let restarted = Mutex(false)
        let (newRequests, arrived) = AsyncStream.makeStream(of: Void.self)
        try await withServer({ request in
            let response = TestResponse.serving(Self.source, to: request, etag: "\"s1\"")
            if request.header("Range") == "bytes=200000-" && !restarted.withLock({ $0 }) {
                return response.withoutHeader("Content-Range").withHeader("Content-Range", "bytes 199000-998999/1000000")
            }
            if request.header("Range") == nil { restarted.withLock { $0 = true } }
            arrived.yield()
            return response.trickled(bytesPerWrite: 50_000, every: .milliseconds(1), gate: gate)
        }) { server in
            let url = server.baseURL + "/k.bin"
            let paths = try #require(DownloadPaths(directory: dir, name: "k.bin"))
            var stored = ResumeData(originalURL: url, finalURL: url, etag: "\"s1\"", lastModified: nil, expectedLength: 1_000_000,
                                    bytesOnDisk: 200_000, partPath: paths.partPath, finalPath: paths.finalPath,
                                    sessionIdentifier: identifier)
            stored.segments = held
            try ResumeStore.save(stored, at: paths)
            let task = Session(configuration: Self.configuration(background: identifier))
                .downloadTask(with: request(url), destination: .directory(dir))
            task.resume()
            for await _ in newRequests where restarted.withLock({ $0 }) { break }
            // The restart's first request is out: what a kill now would leave behind.
            // Read as the rerun would, before it checks the part's length (which catches only
            // the moment right after the cut, not the part grown again by the new attempt).
            let onDisk = try #require(ResumeData(serialized: [UInt8](Data(contentsOf: URL(fileURLWithPath: paths.statePath)))))
            let partNow = try [UInt8](Data(contentsOf: URL(fileURLWithPath: paths.partPath)))
            let claimed = onDisk.segments ?? [ByteRange(start: 0, end: onDisk.bytesOnDisk)]
            for range in claimed where range.count > 0 {
                #expect(range.end <= Int64(partNow.count), "the state claims \(range); the part holds \(partNow.count) bytes")
                if range.end <= Int64(partNow.count) {
                    #expect(partNow[Int(range.start)..<Int(range.end)] == Self.source[Int(range.start)..<Int(range.end)])
                }
            }
            gate.openFully()
            #expect(await task.outcome() == nil)
            #expect(fingerprint(contents(paths.finalPath)) == fingerprint(Self.source))
        }
        #expect(files(in: dir) == ["k.bin"])
    }

    /// A part missing one range in the middle continues with that range only: the open answer
    /// is cut at the held bytes after the gap, never the part (which would throw those bytes
    /// away and fetch them again). The answer is held at the gap's end: a download that wanted
    /// more would wait there, time out and fail.
    @Test func oneGapInTheMiddleIsFetchedAloneAndTheBytesAfterItAreKept() async throws {
        let dir = try makeTemporaryDirectory()
        let identifier = "gap-test"
        var part = Self.source
        for index in 200_000..<300_000 { part[index] = 0 }
        try Data(part).write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        let gate = BodyGate()
        gate.open(to: 100_000)  // exactly the gap: bytes 200,000 to 299,999
        try await withServer({ request in
            TestResponse.serving(Self.source, to: request, etag: "\"s1\"").trickled(bytesPerWrite: 25_000, every: .milliseconds(1), gate: gate)
        }) { server in
            let url = server.baseURL + "/g.bin"
            let paths = try #require(DownloadPaths(directory: dir, name: "g.bin"))
            var stored = ResumeData(originalURL: url, finalURL: url, etag: "\"s1\"", lastModified: nil, expectedLength: 1_000_000,
                                    bytesOnDisk: 200_000, partPath: paths.partPath, finalPath: paths.finalPath,
                                    sessionIdentifier: identifier)
            stored.segments = [ByteRange(start: 0, end: 200_000), ByteRange(start: 300_000, end: 1_000_000)]
            try ResumeStore.save(stored, at: paths)
            let task = Session(configuration: Self.configuration(background: identifier))
                .downloadTask(with: request(url), destination: .directory(dir))
            task.resume()
            #expect(await task.outcome() == nil)
            gate.openFully()
            #expect(fingerprint(contents(paths.finalPath)) == fingerprint(Self.source))
            #expect(server.requests.map { $0.header("Range") } == ["bytes=200000-"])
        }
        #expect(files(in: dir) == ["g.bin"])
    }
}
