import NIOConcurrencyHelpers
import NIOCore

/// Segmented downloads (`segmentsPerDownload > 1`, the command's `--split`): once the first
/// answer proves a length, byte ranges and a validator, the missing bytes are fetched over up
/// to N connections into the one `.part` file, each segment written at its offsets. A worker
/// that finishes steals half of the largest remainder (``SegmentPlan``). Every segment's
/// answer is judged like a resume (206, exact start, same length, validator and coding);
/// anything else restarts the download, so bytes of two versions are never mixed. The segment
/// map is checkpointed in the resume state, so a killed download fetches only what is missing.
///
/// Workers run as child tasks and share only Sendable values: the ``SegmentBoard``, the
/// segment request maker (the exchange's ``HopRequest`` rules at the current hop) and a stream
/// of messages to the transfer's own task, which reports progress and checkpoints one at a time.
struct SegmentedDownload {
    let transfer: DownloadTransfer
    let fetcher: any SegmentFetcher
    let plan: SegmentPlan
    let response: Response

    /// The plan for fetching this answer in segments, or nil when one connection is the way.
    static func plan(for response: Response, offset: Int64, state: DownloadState, transform: BodyTransform,
                     file: OpenDownload, configuration: SessionConfiguration) -> SegmentPlan? {
        let connections = configuration.segmentsPerDownload
        guard connections > 1, !state.segmentsDisabled, transform.decoding.isEmpty, case .part = file, let resume = state.resume,
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
                               minimumSegment: configuration.minimumSegmentBytes, done: done)
        // One piece that runs to the end is what a single connection does anyway; one that stops
        // before ranges already held is a segment (its connection stops at the held bytes, which
        // a single connection would cut away and fetch again). The open answer must start where
        // the first piece does, since it becomes that piece's transfer.
        guard let first = plan.unassigned.first, first.start == offset,
              plan.unassigned.count > 1 || first.end < length else { return nil }
        return plan
    }

    /// What workers tell the transfer's task.
    private enum Message: Sendable {
        case landed
        case finished(SessionError?)
    }

    /// Fetches every missing byte: worker 0 continues `first` on its connection, the others ask
    /// for ranges. Returns nil when the file is complete, else how the attempt ends.
    func run(first: FinalResponse) async -> Consumed? {
        let task = transfer.task
        let board = SegmentBoard(plan)
        guard let resume = transfer.state.resume, let (range, end) = board.assign(0) else {
            return .restart(reason: "no segment to start with", reusable: false)
        }
        let fd = transfer.file?.fileDescriptor ?? -1
        let expected = plan.length
        let worker = SegmentWorker(task: task, board: board, fd: fd, resume: resume, fetcher: fetcher)
        let workers = min(plan.connections, plan.unassigned.count + 1)
        let (messages, post) = AsyncStream.makeStream(of: Message.self)
        var failures: [SessionError] = []
        await withTaskGroup(of: Void.self) { group in
            let opening = SegmentWorker.Opening(range: range, end: end, final: first)
            group.addTask { post.yield(.finished(await worker.run(0, opening: opening, landed: { post.yield(.landed) }))) }
            for index in 1..<max(1, workers) {
                group.addTask { post.yield(.finished(await worker.run(index, opening: nil, landed: { post.yield(.landed) }))) }
            }
            var running = max(1, workers)
            for await message in messages {
                switch message {
                case .landed:
                    report(board, expected: expected, force: false)
                case .finished(let failure):
                    running -= 1
                    if let failure {
                        failures.append(failure)
                        if board.restartReason != nil || failure == SessionError.cancelled { board.closeAll() }
                    }
                }
                if running == 0 { break }
            }
            post.finish()
        }
        // A restart throws the map away: no last checkpoint of it.
        report(board, expected: expected, force: board.restartReason == nil)
        if board.disableSegments { transfer.state.segmentsDisabled = true }
        if let reason = task.cancellation { return .failed(reason, reusable: false) }
        if let reason = board.restartReason {
            transfer.state.resume = nil  // nothing stored is worth anything now
            if let file = transfer.file { try? transfer.cutPart(file, to: 0) }
            return .restart(reason: reason, reusable: false)
        }
        guard board.isComplete else {
            return .failed(failures.last ?? SessionError.connectionClosed.with("segments ended before the file was complete"),
                           reusable: false)
        }
        task.status.withLockedValue { $0.bytesReceived = expected }
        return nil
    }

    /// Progress of all segments together, and a checkpoint of the segment map when one is due.
    private func report(_ board: SegmentBoard, expected: Int64, force: Bool) {
        let (delta, total) = board.takeProgress()
        transfer.task.status.withLockedValue { $0.bytesReceived = total }
        if let file = transfer.file,
           let due = transfer.state.segmentsWritten(board.completed, now: .now(), checkpoints: transfer.checkpoints, force: force),
           let paths = file.paths {
            transfer.save(due, at: paths, fd: file.fileDescriptor)
        }
        guard delta > 0 else { return }
        transfer.task.emit(.wroteData(bytesWritten: delta, totalBytesWritten: total, totalBytesExpectedToWrite: expected))
    }
}

/// One connection's loop of a segmented download: take a segment, fetch it, repeat until
/// nothing is left worth taking. Transient failures give the segment back and try again (three
/// times in a row at most); an answer that is not the same file restarts the download.
struct SegmentWorker: Sendable {
    let task: SessionTask
    let board: SegmentBoard
    let fd: Int32
    /// The state the segments continue: validators, coding, length.
    let resume: ResumeData
    /// Fetches ranges at the download's current hop (HopRequest's origin rules).
    let fetcher: any SegmentFetcher

    /// The first answer, already open, and the piece it carries.
    struct Opening: Sendable {
        let range: ByteRange
        let end: SegmentEnd
        let final: FinalResponse
    }

    private enum Outcome {
        case complete
        /// The connection failed; the rest of the segment goes back to the pool.
        case cut(SessionError)
        /// Writing failed, or the file changed: no other connection can do better.
        case fatal(SessionError)
    }

    func run(_ index: Int, opening: Opening?, landed: @Sendable () -> Void) async -> SessionError? {
        var opening = opening
        var failuresInARow = 0
        while let (range, end) = opening.map({ ($0.range, $0.end) }) ?? board.assign(index) {
            if let reason = task.cancellation { return reason }
            let outcome: Outcome
            if let open = opening {
                opening = nil
                outcome = await fetch(range, end: end, index: index, on: open.final, landed: landed).outcome
            } else {
                do {
                    outcome = try await fetcher.fetch(adding: segmentFields(range)) { final in
                        if let refusal = judge(final.response, range: range) { return (refusal, false) }
                        let (outcome, bodyEnded) = await fetch(range, end: end, index: index, on: final, landed: landed)
                        // A segment that stopped before its answer's end (a steal lowered it,
                        // or it ended exactly at the body's last byte, before the end of the
                        // message was read) closed its connection: never hand that back.
                        if case .complete = outcome, bodyEnded { return (outcome, true) }
                        return (outcome, false)
                    }
                } catch {
                    outcome = .cut(error)
                }
            }
            switch outcome {
            case .complete:
                board.finished(index)
                failuresInARow = 0
            case .cut(let error):
                board.failed(index)
                failuresInARow += 1
                if failuresInARow >= 3 || task.cancellation != nil || !RetryPolicy.isTransient(error) { return error }
                try? await Task.sleep(for: .milliseconds(200 * failuresInARow))
            case .fatal(let error):
                board.failed(index)
                return error
            }
        }
        return nil
    }

    /// The fields of a range request continuing the same representation (If-Range, coding)
    /// from `range.start`.
    private func segmentFields(_ range: ByteRange) -> [(name: String, value: String)] {
        var data = resume
        data.bytesOnDisk = range.start
        data.acceptsUnvalidatedRange = false
        var fields: [(name: String, value: String)] = []
        if case .resume(_, let headers) = ResumeNegotiation.plan(for: data) {
            fields = headers.map { ($0.name, $0.value) }
        }
        fields.append(("Range", "bytes=\(range.start)-\(range.end - 1)"))
        return fields
    }

    /// Nil when the answer continues the same file at `range.start`; otherwise what it means.
    private func judge(_ response: Response, range: ByteRange) -> Outcome? {
        var data = resume
        data.bytesOnDisk = range.start
        switch ResumeNegotiation.evaluate(status: response.statusCode, headers: response.headers, resuming: data) {
        case .append(let offset) where offset == range.start:
            return nil
        case .restartWithThisBody:
            // Ranges promised but not served: finish on one connection.
            board.restart("the server answered a segment with the whole file", disableSegments: true)
            return .fatal(SessionError.badResponse.with("the server answered a segment with the whole file"))
        case .restartWithNewRequest(let reason):
            board.restart(reason, disableSegments: false)
            return .fatal(SessionError.badResponse.with(reason))
        default:
            let error = SessionError.httpStatus.with("a segment was answered with \(response.statusCode)").responding(response)
            return RetryPolicy.isTransient(status: response.statusCode) ? .cut(error.asTransient()) : .fatal(error)
        }
    }

    /// Streams one segment into the part file at its offsets. `bodyEnded`: the answer was read
    /// to its end, so its connection can carry another request.
    private func fetch(_ range: ByteRange, end: SegmentEnd, index: Int, on final: FinalResponse,
                       landed: @Sendable () -> Void) async -> (outcome: Outcome, bodyEnded: Bool) {
        var received: Int64 = 0
        var failure: SessionError?
        var bodyEnded = false
        let spec = SinkSpec.file(fd: fd, progressInterval: .milliseconds(100), segment: SegmentWindow(start: range.start, end: end))
        board.track(index, final.body)
        defer { board.track(index, nil) }
        if let parts = final.completeBody {
            // The whole (small) segment came with its head.
            var position = range.start
            for part in parts {
                let room = max(0, end.value - position)
                var slice = part
                if Int64(slice.readableBytes) > room { slice.moveWriterIndex(to: slice.readerIndex + Int(room)) }
                var landedBytes = 0
                do {
                    try slice.withUnsafeReadableBytes { bytes throws(SessionError) in
                        try FileWriter.writeAll(bytes, to: fd, at: position, landed: &landedBytes)
                    }
                } catch {
                    return (.fatal(error), false)
                }
                position += Int64(landedBytes)
            }
            received = position - range.start
            bodyEnded = true
        } else {
            await final.body.streamBody(spec) { event in
                switch event {
                case .progress(let count):
                    received = count
                    board.received(index, upTo: range.start + count)
                    landed()
                case .end(let bodyEnd):
                    received = bodyEnd.bytes
                    bodyEnded = !bodyEnd.stoppedEarly
                case .failed(let error):
                    failure = error
                case .data:
                    break
                }
            }
        }
        board.received(index, upTo: range.start + received)
        landed()
        if let failure { return (failure.category == .fileIO ? .fatal(failure) : .cut(failure), false) }
        guard range.start + received >= end.value else {
            return (.cut(SessionError.connectionClosed.with("segment ended early")), false)
        }
        return (.complete, bodyEnded)
    }
}

extension SessionError {
    /// A transient status answered for a segment: retried like a dropped connection.
    func asTransient() -> SessionError {
        var copy = SessionError.connectionClosed.with(message)
        copy.response = response
        return copy
    }
}

/// The plan of one segmented download shared by its workers: the ``SegmentPlan`` behind a lock,
/// each worker's live segment end (lowered when another worker steals from it) and its
/// connection (closed when the download must stop at once), and whether the download must
/// restart.
final class SegmentBoard: Sendable {
    private struct State {
        var plan: SegmentPlan
        var ends: [Int: SegmentEnd] = [:]
        var connections: [Int: any BodySource] = [:]
        var reported: Int64
        var restartReason: String?
        var disableSegments = false
    }

    private let state: NIOLockedValueBox<State>

    init(_ plan: SegmentPlan) {
        state = NIOLockedValueBox(State(plan: plan, reported: plan.length - plan.remainingBytes))
    }

    /// A segment for `worker` and the end its sink must stop at; nil when nothing is left.
    func assign(_ worker: Int) -> (ByteRange, SegmentEnd)? {
        state.withLockedValue { s in
            guard s.restartReason == nil, let range = s.plan.assign(worker: worker) else { return nil }
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

    func track(_ worker: Int, _ connection: (any BodySource)?) {
        state.withLockedValue { $0.connections[worker] = connection }
    }

    /// The download must start over (the file changed, or the server cannot serve ranges).
    func restart(_ reason: String, disableSegments: Bool) {
        state.withLockedValue { s in
            if s.restartReason == nil { s.restartReason = reason }
            s.disableSegments = s.disableSegments || disableSegments
        }
    }

    var restartReason: String? { state.withLockedValue { $0.restartReason } }
    var disableSegments: Bool { state.withLockedValue { $0.disableSegments } }

    /// Closes every worker's connection (cancellation, or a restart found by one worker).
    func closeAll() {
        let open = state.withLockedValue { Array($0.connections.values) }
        open.forEach { $0.abort() }
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
