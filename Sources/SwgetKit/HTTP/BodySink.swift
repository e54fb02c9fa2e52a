import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// What the task driver hears while a body streams. Progress is throttled at the source, so the
/// stream carries a handful of events a second for a download however fast it runs.
enum BodyEvent: Sendable {
    /// Total body bytes consumed so far (written to the file, or delivered).
    case progress(Int64)
    /// A piece of body for a data task.
    case data([UInt8])
    /// The body ended; `bytes` in total.
    case end(bytes: Int64)
    case failed(SessionError)
}

/// Where body bytes go, chosen by the driver and built on the event loop.
enum SinkSpec: Sendable {
    /// Write to `fd` (a file or stdout), reporting progress at most every `progressInterval`.
    case file(fd: Int32, progressInterval: TimeAmount)
    /// Deliver pieces to the driver; reading pauses while more than `highWatermark` bytes are
    /// delivered but not yet acknowledged.
    case data(highWatermark: Int)
    /// Read and drop at most `limit` bytes (the body of a redirect), then fail if there is more.
    case discard(limit: Int64)
}

/// The event-loop side of a body transfer. Never leaves the channel's event loop.
protocol BodySink: AnyObject {
    /// Takes one body part. Throwing aborts the transfer and closes the connection.
    func write(_ part: ByteBuffer) throws(SessionError)
    /// True while the sink wants no more reads (backpressure).
    var isPaused: Bool { get }
    /// The body ended cleanly; returns the total byte count.
    func finish() throws(SessionError) -> Int64
    /// The driver acknowledged `count` delivered bytes (data sinks only).
    func acknowledge(_ count: Int)
}

/// Writes each body part to a file descriptor with `write(2)` on the event loop: the body never
/// leaves the pipeline, no copies, no hops (curl's model).
final class FileSink: BodySink {
    private let fd: Int32
    private let events: AsyncStream<BodyEvent>.Continuation
    private let progressInterval: TimeAmount
    private let eventLoop: EventLoop
    private var written: Int64 = 0
    private var reported: Int64 = -1
    private var lastReport = NIODeadline.distantPast
    /// A report due at the end of the current interval, so the last bytes before a pause are
    /// never left unreported.
    private var trailingReport: Scheduled<Void>?

    init(fd: Int32, progressInterval: TimeAmount, eventLoop: EventLoop, events: AsyncStream<BodyEvent>.Continuation) {
        self.fd = fd
        self.progressInterval = progressInterval
        self.eventLoop = eventLoop
        self.events = events
    }

    var isPaused: Bool { false }

    func write(_ part: ByteBuffer) throws(SessionError) {
        // (error, bytes of this part that did reach the file)
        let (result, done): (Int32, Int) = part.withUnsafeReadableBytes { raw in
            guard var pointer = raw.baseAddress else { return (0, 0) }
            var remaining = raw.count
            while remaining > 0 {
                let n = Glibc.write(fd, pointer, remaining)
                if n < 0 {
                    if errno == EINTR { continue }
                    return (errno, raw.count - remaining)
                }
                pointer += n
                remaining -= n
            }
            return (0, raw.count)
        }
        if result != 0 {
            written += Int64(done)  // what did land still counts for a resume
            throw SessionError.fileIO.with("write failed: \(String(cString: strerror(result)))")
        }
        written += Int64(part.readableBytes)
        let now = NIODeadline.now()
        if now - lastReport >= progressInterval {
            report(at: now)
        } else if trailingReport == nil {
            let sink = NIOLoopBound(self, eventLoop: eventLoop)
            trailingReport = eventLoop.scheduleTask(deadline: lastReport + progressInterval) {
                sink.value.trailingReport = nil
                if sink.value.reported != sink.value.written { sink.value.report(at: .now()) }
            }
        }
    }

    private func report(at now: NIODeadline) {
        lastReport = now
        reported = written
        events.yield(.progress(written))
    }

    func finish() throws(SessionError) -> Int64 {
        trailingReport?.cancel()
        trailingReport = nil
        if reported != written { events.yield(.progress(written)) }
        return written
    }

    func acknowledge(_ count: Int) {}
}

/// Hands body parts to the driver as byte arrays, pausing the connection while the consumer is
/// behind by more than the high watermark.
final class DataSink: BodySink {
    private let events: AsyncStream<BodyEvent>.Continuation
    private let highWatermark: Int
    private var outstanding = 0
    private var total: Int64 = 0

    init(highWatermark: Int, events: AsyncStream<BodyEvent>.Continuation) {
        self.highWatermark = highWatermark
        self.events = events
    }

    var isPaused: Bool { outstanding > highWatermark }

    func write(_ part: ByteBuffer) throws(SessionError) {
        outstanding += part.readableBytes
        total += Int64(part.readableBytes)
        events.yield(.data(Array(part.readableBytesView)))
    }

    func finish() throws(SessionError) -> Int64 { total }

    func acknowledge(_ count: Int) { outstanding -= count }
}

/// Drops a bounded amount of body so a connection can be reused after a redirect.
final class DiscardSink: BodySink {
    private let limit: Int64
    private var total: Int64 = 0

    init(limit: Int64) { self.limit = limit }

    var isPaused: Bool { false }

    func write(_ part: ByteBuffer) throws(SessionError) {
        total += Int64(part.readableBytes)
        if total > limit { throw SessionError.badResponse.with("redirect body too large to drain") }
    }

    func finish() throws(SessionError) -> Int64 { total }

    func acknowledge(_ count: Int) {}
}

extension SinkSpec {
    func makeSink(eventLoop: EventLoop, events: AsyncStream<BodyEvent>.Continuation) -> BodySink {
        switch self {
        case .file(let fd, let interval): FileSink(fd: fd, progressInterval: interval, eventLoop: eventLoop, events: events)
        case .data(let mark): DataSink(highWatermark: mark, events: events)
        case .discard(let limit): DiscardSink(limit: limit)
        }
    }
}
