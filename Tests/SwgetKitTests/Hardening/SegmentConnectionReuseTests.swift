import Foundation
import NIOCore
import Synchronization
import Testing
@testable import SwgetKit

/// A segment's sink stops at the segment's end; when it does before the answer's end of message
/// was read (`BodyEnd.stoppedEarly`), the connection closes, so the worker must not give it back
/// as reusable. The fault soak (`scripts/soak`) found that it did: a segment ending at its
/// answer's last byte handed back a connection being closed, the pool leased it to the next
/// download, and that download failed at once with "unexpected response data" (exit status 7,
/// not retried) — 3 of 5 fault-free `-j 8 --split 4` runs of 16 files lost a file that way.
@Suite("Segment connection reuse")
struct SegmentConnectionReuseTests {
    static let length: Int64 = 4 << 20
    static let etag = "\"v1\""

    /// A body that ends as a file sink would report it, without bytes (the test writes nothing).
    struct EndingBody: BodySource {
        let end: BodyEnd
        func streamBody(_ spec: SinkSpec, _ handle: (BodyEvent) async -> Void) async { await handle(.end(end)) }
        func acknowledge(_ count: Int) {}
        func drainBody(limit: Int64) async -> Bool { false }
        func abort() {}
    }

    /// Answers each range request with a matching 206 whose body ends with `stoppedEarly`, and
    /// records whether the worker called the connection reusable.
    final class RecordingFetcher: SegmentFetcher {
        let stoppedEarly: Bool
        let verdicts = Mutex<[Bool]>([])

        init(stoppedEarly: Bool) { self.stoppedEarly = stoppedEarly }

        func fetch<T>(adding fields: [(name: String, value: String)],
                      _ body: (FinalResponse) async -> (T, reusable: Bool)) async throws(SessionError) -> T {
            // The resume fields carry an open range first; the segment's own comes last.
            let range = fields.last { $0.name == "Range" }?.value.dropFirst("bytes=".count).split(separator: "-")
            guard let range, range.count == 2, let first = Int64(range[0]), let last = Int64(range[1]),
                  let url = URL(string: "http://127.0.0.1/f.bin") else { throw SessionError.badResponse.with("no range") }
            let count = last - first + 1
            let headers = HeaderFields([("Content-Range", "bytes \(first)-\(last)/\(SegmentConnectionReuseTests.length)"),
                                        ("ETag", SegmentConnectionReuseTests.etag), ("Content-Length", "\(count)")])
            let final = FinalResponse(response: Response(url: url, statusCode: 206, headers: headers, expectedContentLength: count),
                                      framing: ResponseFraming(body: .length(count), keepAlive: true), completeBody: nil,
                                      trailingGarbage: false,
                                      body: EndingBody(end: BodyEnd(bytes: count, decoded: count, stoppedEarly: stoppedEarly)))
            let (result, reusable) = await body(final)
            verdicts.withLock { $0.append(reusable) }
            return result
        }
    }

    @Test(arguments: [(true, false), (false, true)])
    func aSegmentThatStoppedItsBodyNeverHandsBackItsConnection(_ stoppedEarly: Bool, _ reusable: Bool) async throws {
        let url = try #require(URL(string: "http://127.0.0.1/f.bin"))
        let task = SessionTask(session: Session(configuration: .ephemeral), identifier: 1, request: Request(url: url))
        let board = SegmentBoard(SegmentPlan(length: Self.length, connections: 2, minimumSegment: 1 << 20))
        _ = board.assign(0)  // the first answer's segment is not fetched by the worker under test
        var resume = ResumeData(originalURL: url.absoluteString, finalURL: url.absoluteString, etag: Self.etag, lastModified: nil,
                                expectedLength: Self.length, bytesOnDisk: 0, partPath: "/nonexistent/f.bin.part",
                                finalPath: "/nonexistent/f.bin")
        resume.segments = []
        let fetcher = RecordingFetcher(stoppedEarly: stoppedEarly)
        let worker = SegmentWorker(task: task, board: board, fd: -1, resume: resume, fetcher: fetcher)
        let failure = await worker.run(1, opening: nil, landed: {})
        #expect(failure == nil)
        let verdicts = fetcher.verdicts.withLock { $0 }
        #expect(!verdicts.isEmpty)
        #expect(verdicts.allSatisfy { $0 == reusable }, "\(verdicts)")
    }
}
