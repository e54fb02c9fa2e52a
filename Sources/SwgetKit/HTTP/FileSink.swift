import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes each body part to a file descriptor with `write(2)` on the event loop: the body never
/// leaves the pipeline, no copies, no hops (curl's model). Decoded bodies are written from the
/// decoders' buffers. Progress is reported at most once per interval, plus a trailing report so
/// the last bytes before a pause are never left unreported.
final class FileSink: BodySink {
    private let fd: Int32
    private let events: AsyncStream<BodyEvent>.Continuation
    private let progressInterval: TimeAmount
    private let eventLoop: EventLoop
    private var output: BodyOutput
    private var reported: Int64 = -1
    private var lastReport = NIODeadline.distantPast
    private var trailingReport: Scheduled<Void>?
    /// For a segment: where the next byte goes, and where the segment ends.
    private var segment: (position: Int64, end: SegmentEnd)?
    private var satisfied = false

    init(fd: Int32, progressInterval: TimeAmount, transform: BodyTransform, segment: SegmentWindow?, eventLoop: EventLoop,
         events: AsyncStream<BodyEvent>.Continuation) {
        self.fd = fd
        self.segment = segment.map { ($0.start, $0.end) }
        self.progressInterval = progressInterval
        self.eventLoop = eventLoop
        self.events = events
        output = BodyOutput(transform)
    }

    var isPaused: Bool { false }

    func write(_ part: ByteBuffer) throws(SessionError) -> SinkProgress {
        var part = part
        if let segment {
            let room = max(0, segment.end.value - segment.position)
            if Int64(part.readableBytes) >= room {
                part.moveWriterIndex(to: part.readerIndex + Int(room))
                satisfied = true
            }
        }
        var landed = 0
        do {
            try output.process(part) { bytes throws(SessionError) in
                try FileWriter.writeAll(bytes, to: fd, at: segment?.position, landed: &landed)
            }
        } catch {
            output.creditLanded(landed)  // what did land still counts for a resume
            throw error
        }
        segment?.position += Int64(landed)
        if satisfied { return .satisfied }
        let now = eventLoop.now
        if now - lastReport >= progressInterval {
            report(at: now)
        } else if trailingReport == nil {
            let sink = NIOLoopBound(self, eventLoop: eventLoop)
            trailingReport = eventLoop.scheduleTask(deadline: lastReport + progressInterval) {
                sink.value.trailingReport = nil
                if sink.value.reported != sink.value.output.received { sink.value.report(at: sink.value.eventLoop.now) }
            }
        }
        return .more
    }

    private func report(at now: NIODeadline) {
        lastReport = now
        reported = output.received
        events.yield(.progress(output.received))
    }

    func finish() throws(SessionError) -> BodyEnd {
        var landed = 0
        try output.finish { bytes throws(SessionError) in try FileWriter.writeAll(bytes, to: fd, landed: &landed) }
        abandon()
        return BodyEnd(bytes: output.received, decoded: output.delivered, stoppedEarly: satisfied)
    }

    func abandon() {
        trailingReport?.cancel()
        trailingReport = nil
        if reported != output.received { report(at: eventLoop.now) }
    }

    func acknowledge(_ count: Int) {}
}

/// `write(2)`/`pwrite(2)` until every byte landed, retrying on EINTR.
enum FileWriter {
    /// Writes all of `bytes` (at `offset` and on, when given), adding to `landed` what reached
    /// the file (also when it fails).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int64? = nil,
                         landed: inout Int) throws(SessionError) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let n = offset.map { pwrite(fd, pointer, remaining, off_t($0) + off_t(landed)) } ?? Glibc.write(fd, pointer, remaining)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SessionError.fileIO.with("write failed: \(String(cString: strerror(code)))").errno(code)
            }
            pointer += n
            remaining -= n
            landed += n
        }
    }
}
