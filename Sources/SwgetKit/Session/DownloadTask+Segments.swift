import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Segmented downloads (`segmentsPerDownload > 1`, the command's `--split`): once the first
/// answer proves a length, byte ranges and a validator, the missing bytes are fetched over up
/// to N connections into the one `.part` file, each segment written at its offsets. A worker
/// that finishes steals half of the largest remainder (``SegmentPlan``). Every segment's
/// answer is judged like a resume (206, exact start, same length, validator and coding);
/// anything else restarts the download, so bytes of two versions are never mixed. The segment
/// map is checkpointed in the resume state, so a killed download fetches only what is missing.
extension DownloadTask {
    /// The plan for fetching this answer in segments, or nil when one connection is the way.
    func segmentPlan(for response: Response, offset: Int64, transform: BodyTransform, sink: Sink) -> SegmentPlan? {
        let connections = session.configuration.segmentsPerDownload
        let (resume, disabled) = progress.withLockedValue { ($0.resume, $0.segmentsDisabled) }
        guard connections > 1, !disabled, transform.decoding.isEmpty, case .part = sink, let resume,
              resume.hasStrongETag || resume.lastModified != nil,
              let length = resume.expectedLength, length > 0 else { return nil }
        switch response.statusCode {
        case 200:
            guard offset == 0, response.headers["Accept-Ranges"]?.lowercased().contains("bytes") == true else { return nil }
        case 206:
            break
        default:
            return nil
        }
        let done = resume.segments ?? (offset > 0 ? [ByteRange(start: 0, end: offset)] : [])
        let plan = SegmentPlan(length: length, connections: connections,
                               minimumSegment: session.configuration.minimumSegmentBytes, done: done)
        // One piece is what a single connection does anyway; and the open answer must start
        // where the first piece does, since it becomes that piece's transfer.
        guard plan.unassigned.count > 1, plan.unassigned.first?.start == offset else { return nil }
        return plan
    }

    /// Fetches the plan's bytes: worker 0 continues `response` on `connection`, the others ask
    /// for ranges; returns when every byte is written, or throws why not.
    func receiveSegments(_ plan: SegmentPlan, first connection: HTTPConnection, framing: ResponseFraming,
                         response: Response, sink: Sink) async throws(SessionError) {
        let board = SegmentBoard(plan)
        progress.withLockedValue { $0.segmentBoard = board }
        defer { progress.withLockedValue { $0.segmentBoard = nil } }
        let expected = plan.length
        let workers = min(plan.connections, plan.unassigned.count + 1)
        // The open answer is the first piece's transfer: worker 0 takes it before anyone else
        // can take anything.
        guard let (range, end) = board.assign(0) else {
            session.pool.release(connection, reusable: false)
            throw SessionError.restart("no segment to start with")
        }
        let opening = OpenSegment(range: range, end: end, connection: connection, framing: framing)
        // The workers only say that bytes landed; one reporter tells the delegate, so its calls
        // for this task stay one at a time and in order (totals never go backwards), as
        // SessionDelegate promises. Signals that come while a call runs are folded into one.
        let (landed, progressed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        async let reporting: Void = {
            for await _ in landed { await self.reportSegmentProgress(board, sink: sink, expected: expected) }
            await self.reportSegmentProgress(board, sink: sink, expected: expected)
        }()
        let failures = await withTaskGroup(of: SessionError?.self) { group -> [SessionError] in
            group.addTask { await self.runWorker(0, board: board, sink: sink, response: response,
                                                 first: opening, progressed: progressed) }
            for worker in 1..<max(1, workers) {
                group.addTask { await self.runWorker(worker, board: board, sink: sink, response: response,
                                                     first: nil, progressed: progressed) }
            }
            var failures: [SessionError] = []
            for await failure in group {
                guard let failure else { continue }
                failures.append(failure)
                if failure.code == .restart || failure == SessionError.cancelled { board.closeAll() }
            }
            return failures
        }
        progressed.finish()
        await reporting
        recordSegments(board, sink: sink, force: true)
        if let reason = mutable.withLockedValue({ $0.cancellation }) { throw reason }
        if let restart = failures.first(where: { $0.code == .restart }) {
            try position(sink, at: 0)
            progress.withLockedValue { $0.resume = nil }  // nothing stored is worth anything now
            throw restart
        }
        guard board.isComplete else {
            throw failures.last ?? SessionError.connectionClosed.with("segments ended before the file was complete")
        }
        mutable.withLockedValue { $0.bytesReceived = expected }
        try await finish(sink)
    }

    /// One connection's loop: take a segment, fetch it, repeat until nothing is left worth
    /// taking. Transient failures give the segment back and try again (three times in a row at
    /// most); an answer that is not the same file restarts the download.
    private func runWorker(_ worker: Int, board: SegmentBoard, sink: Sink, response: Response,
                           first: OpenSegment?, progressed: AsyncStream<Void>.Continuation) async -> SessionError? {
        var first = first
        var failuresInARow = 0
        while let (range, end) = first.map({ ($0.range, $0.end) }) ?? board.assign(worker) {
            if let reason = mutable.withLockedValue({ $0.cancellation }) {
                if let first { session.pool.release(first.connection, reusable: false) }
                return reason
            }
            let connection: HTTPConnection
            let framing: ResponseFraming
            if let open = first {
                (connection, framing) = (open.connection, open.framing)
                first = nil
            } else {
                do {
                    (connection, framing) = try await requestSegment(range, response: response)
                } catch {
                    board.failed(worker)
                    if error.code == .restart { return error }
                    failuresInARow += 1
                    if failuresInARow >= 3 || !RetryPolicy.isTransient(error) && error.code != .serverBusy { return error }
                    try? await Task.sleep(for: .milliseconds(200 * failuresInARow))
                    continue
                }
            }
            board.track(worker, connection)
            let outcome = await fetch(range, end: end, worker: worker, board: board, sink: sink, on: connection,
                                      framing: framing, progressed: progressed)
            board.track(worker, nil)
            switch outcome {
            case .complete:
                board.finished(worker)
                failuresInARow = 0
            case .cut(let error):
                board.failed(worker)
                failuresInARow += 1
                if failuresInARow >= 3 || mutable.withLockedValue({ $0.cancellation }) != nil { return error }
            case .fatal(let error):
                board.failed(worker)
                return error
            }
        }
        return nil
    }

    /// The first answer, already open, and the piece it carries.
    private struct OpenSegment: Sendable {
        let range: ByteRange
        let end: SegmentEnd
        let connection: HTTPConnection
        let framing: ResponseFraming
    }

    private enum SegmentOutcome {
        case complete
        /// The connection failed; the rest of the segment goes back to the pool.
        case cut(SessionError)
        /// Writing failed: no other connection can do better.
        case fatal(SessionError)
    }

    /// Streams one segment into the part file at its offsets.
    private func fetch(_ range: ByteRange, end: SegmentEnd, worker: Int, board: SegmentBoard, sink: Sink,
                       on connection: HTTPConnection, framing: ResponseFraming,
                       progressed: AsyncStream<Void>.Continuation) async -> SegmentOutcome {
        var received: Int64 = 0
        var failure: SessionError?
        var ended = false
        let spec = SinkSpec.file(fd: sink.fd, progressInterval: .milliseconds(100),
                                 segment: SegmentWindow(start: range.start, end: end))
        await connection.streamBody(spec) { event in
            switch event {
            case .progress(let count):
                received = count
                board.received(worker, upTo: range.start + count)
                progressed.yield()
            case .end(let bytes, _):
                received = bytes
                ended = true
            case .failed(let error):
                failure = error
            case .data:
                break
            }
        }
        board.received(worker, upTo: range.start + received)
        progressed.yield()
        let reachedEnd = range.start + received >= end.value
        session.pool.release(connection, reusable: ended && failure == nil && framing.keepAlive)
        if let failure, failure.code != .segmentEnded {
            return failure.category == .fileIO ? .fatal(failure) : .cut(failure)
        }
        return reachedEnd ? .complete : .cut(SessionError.connectionClosed.with("segment ended early"))
    }

    /// Asks for `range` of the representation the first answer started, and checks that the
    /// answer continues the same file.
    private func requestSegment(_ range: ByteRange, response: Response) async throws(SessionError) -> (HTTPConnection, ResponseFraming) {
        guard var data = progress.withLockedValue({ $0.resume }) else { throw SessionError.restart("resume state lost") }
        data.bytesOnDisk = range.start
        data.acceptsUnvalidatedRange = false
        var request = originalRequest
        request.url = response.url
        guard case .resume(_, let headers) = ResumeNegotiation.plan(for: data) else {
            throw SessionError.restart("no validator to fetch segments with")
        }
        for header in headers { request.headers.set(header.name, header.value) }
        request.headers.set("Range", "bytes=\(range.start)-\(range.end - 1)")
        let (connection, answer, framing) = try await exchange(request)
        let outcome = ResumeNegotiation.evaluate(status: answer.statusCode, headers: answer.headers, resuming: data)
        switch outcome {
        case .append(let offset) where offset == range.start:
            return (connection, framing)
        case .restartWithThisBody:
            // Ranges promised but not served: finish on one connection.
            session.pool.release(connection, reusable: false)
            progress.withLockedValue { $0.segmentsDisabled = true }
            throw SessionError.restart("the server answered a segment with the whole file")
        case .restartWithNewRequest(let reason):
            session.pool.release(connection, reusable: false)
            throw SessionError.restart(reason)
        default:
            session.pool.release(connection, reusable: false)
            if RetryPolicy.isTransient(status: answer.statusCode) {
                throw SessionError.serverBusy(status: answer.statusCode, retryAfter: answer.headers["Retry-After"])
            }
            throw SessionError.badResponse.with("a segment was answered with \(answer.statusCode)")
        }
    }

    /// Progress of all segments together, and a checkpoint of the segment map when one is due.
    private func reportSegmentProgress(_ board: SegmentBoard, sink: Sink, expected: Int64) async {
        let (delta, total) = board.takeProgress()
        mutable.withLockedValue { $0.bytesReceived = total }
        recordSegments(board, sink: sink, force: false)
        guard delta > 0 else { return }
        await session.delegate?.downloadTask(self, didWriteData: delta, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
    }

    /// Puts the written ranges in the resume state; for background sessions, once a second
    /// (or when `force`d), syncs the part first and then saves the state that claims them.
    func recordSegments(_ board: SegmentBoard, sink: Sink, force: Bool) {
        let completed = board.completed
        let prefix = completed.first.map { $0.start == 0 ? $0.end : 0 } ?? 0
        let now = NIODeadline.now()
        let due: ResumeData? = progress.withLockedValue { p in
            p.resume?.segments = completed
            p.resume?.bytesOnDisk = prefix
            guard session.configuration.backgroundIdentifier != nil, force || now - p.lastCheckpointTime >= .seconds(1) else { return nil }
            p.lastCheckpointTime = now
            return p.resume
        }
        guard let data = due, case .part(let file) = sink else { return }
        checkpoint(data, of: file)
    }
}

/// The plan of one segmented download shared by its workers: the ``SegmentPlan`` behind a lock,
/// each worker's live segment end (lowered when another worker steals from it) and its
/// connection (closed when the download must stop at once).
final class SegmentBoard: Sendable {
    private struct State {
        var plan: SegmentPlan
        var ends: [Int: SegmentEnd] = [:]
        var connections: [Int: HTTPConnection] = [:]
        var reported: Int64
    }

    private let state: NIOLockedValueBox<State>

    init(_ plan: SegmentPlan) {
        state = NIOLockedValueBox(State(plan: plan, reported: plan.length - plan.remainingBytes))
    }

    /// A segment for `worker` and the end its sink must stop at; nil when nothing is left.
    func assign(_ worker: Int) -> (ByteRange, SegmentEnd)? {
        state.withLockedValue { s in
            guard let range = s.plan.assign(worker: worker) else { return nil }
            let end = SegmentEnd(range.end)
            s.ends[worker] = end
            // A steal shortened another worker's segment: its sink stops at the new end.
            for (other, otherEnd) in s.ends where other != worker {
                if let current = s.plan.currentEnd(of: other), current < otherEnd.value { otherEnd.value = current }
            }
            return (range, end)
        }
    }

    func received(_ worker: Int, upTo offset: Int64) {
        state.withLockedValue { $0.plan.received(worker: worker, upTo: offset) }
    }

    func finished(_ worker: Int) {
        state.withLockedValue { s in
            s.plan.finished(worker: worker)
            s.ends[worker] = nil
        }
    }

    func failed(_ worker: Int) {
        state.withLockedValue { s in
            s.plan.failed(worker: worker)
            s.ends[worker] = nil
        }
    }

    func track(_ worker: Int, _ connection: HTTPConnection?) {
        state.withLockedValue { $0.connections[worker] = connection }
    }

    /// Closes every worker's connection (cancellation, or a restart found by one worker).
    func closeAll() {
        let open = state.withLockedValue { Array($0.connections.values) }
        open.forEach { $0.close() }
    }

    /// Bytes written since the last call, and in total.
    func takeProgress() -> (delta: Int64, total: Int64) {
        state.withLockedValue { s in
            let total = s.plan.length - s.plan.remainingBytes
            defer { s.reported = total }
            return (max(0, total - s.reported), total)
        }
    }

    var completed: [ByteRange] { state.withLockedValue { $0.plan.completed } }
    var isComplete: Bool { state.withLockedValue { $0.plan.isComplete } }
}
