import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// What the task driver hears while a body streams. Progress is throttled at the source, so the
/// stream carries a handful of events a second for a download however fast it runs.
enum BodyEvent: Sendable {
    /// Body bytes received so far, as sent (before content decoding).
    case progress(Int64)
    /// A piece of (decoded) body for a data task.
    case data([UInt8])
    /// The body ended: `bytes` received in total, `decoded` bytes delivered after decoding
    /// (equal when nothing was decoded).
    case end(bytes: Int64, decoded: Int64)
    case failed(SessionError)
}

/// What happens to body bytes between the framing and the sink's output.
struct BodyTransform: Sendable {
    /// Codings to undo, in the order the server applied them (empty: bytes as sent).
    var decoding: [ContentCoding] = []
    /// Most bytes the sink may output (after decoding); more fails with ``SessionError/tooLarge``.
    var limit: Int64?

    /// Applies the configuration's size limit to a body that follows `offset` stored bytes. An
    /// announced length over it fails at once (a decoded body's length is not known up front).
    mutating func bound(by limit: Int64?, announced length: Int64?, after offset: Int64 = 0) throws(SessionError) {
        guard let limit else { return }
        if decoding.isEmpty, let length, offset + length > limit {
            throw SessionError.tooLarge.with("the body is \(offset + length) bytes, over the limit of \(limit)")
        }
        self.limit = max(0, limit - offset)
    }
}

/// One segment of a segmented download: bytes are written at their own offsets from `start`,
/// and the body is cut off at `end`, which another worker may lower while it streams (work
/// stealing).
struct SegmentWindow: Sendable {
    let start: Int64
    let end: SegmentEnd
}

/// The live end of a segment, shared by the planner and the sink writing the segment.
final class SegmentEnd: Sendable {
    private let box: NIOLockedValueBox<Int64>
    init(_ end: Int64) { box = NIOLockedValueBox(end) }
    var value: Int64 {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}

/// Where body bytes go, chosen by the driver and built on the event loop.
enum SinkSpec: Sendable {
    /// Write to `fd` (a file or stdout), reporting progress at most every `progressInterval`;
    /// with a segment, at the segment's offsets with `pwrite(2)`, up to its end.
    case file(fd: Int32, progressInterval: TimeAmount, transform: BodyTransform = BodyTransform(), segment: SegmentWindow? = nil)
    /// Deliver pieces to the driver; reading pauses while more than `highWatermark` bytes are
    /// delivered but not yet acknowledged.
    case data(highWatermark: Int, transform: BodyTransform = BodyTransform())
    /// Read and drop at most `limit` bytes (the body of a redirect), then fail if there is more.
    case discard(limit: Int64)
}

/// The event-loop side of a body transfer. Never leaves the channel's event loop.
protocol BodySink: AnyObject {
    /// Takes one body part. Throwing aborts the transfer and closes the connection.
    func write(_ part: ByteBuffer) throws(SessionError)
    /// True while the sink wants no more reads (backpressure).
    var isPaused: Bool { get }
    /// The body ended cleanly: flushes the decoders (which may find the encoded data
    /// truncated) and returns the received and decoded byte counts.
    func finish() throws(SessionError) -> (received: Int64, decoded: Int64)
    /// The transfer failed: reports the bytes received so far, decodes nothing more.
    func abandon()
    /// The driver acknowledged `count` delivered bytes (data sinks only).
    func acknowledge(_ count: Int)
}

/// The decoding and size-limit stage of a sink: feeds each part through the decoder chain (if
/// any) and hands the output on, counting what comes out.
struct BodyOutput {
    private let chain: DecoderChain?
    private let limit: Int64?
    private(set) var received: Int64 = 0
    private(set) var delivered: Int64 = 0

    init(_ transform: BodyTransform) {
        chain = transform.decoding.isEmpty ? nil : DecoderChain(transform.decoding)
        limit = transform.limit
    }

    /// Passes `part` (decoded when asked) to `deliver`.
    mutating func process(_ part: ByteBuffer, _ deliver: DecodedOutput) throws(SessionError) {
        var failure: SessionError?
        part.withUnsafeReadableBytes { raw in
            do throws(SessionError) {
                if let chain {
                    try chain.decode(raw) { piece throws(SessionError) in try pass(piece, deliver) }
                } else {
                    try pass(raw, deliver)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        received += Int64(part.readableBytes)
    }

    /// A part failed after `count` of its bytes reached an undecoded output: they are on disk
    /// and count for a resume. (Decoded output cannot be mapped back to received bytes.)
    mutating func creditLanded(_ count: Int) {
        if chain == nil { received += Int64(count) }
    }

    /// The body ended: whatever the decoders still hold, and the check that nothing is missing.
    mutating func finish(_ deliver: DecodedOutput) throws(SessionError) {
        try chain?.finish { piece throws(SessionError) in try pass(piece, deliver) }
    }

    private mutating func pass(_ bytes: UnsafeRawBufferPointer, _ deliver: DecodedOutput) throws(SessionError) {
        if let limit, delivered + Int64(bytes.count) > limit {
            throw SessionError.tooLarge.with("the \(chain == nil ? "body" : "decoded body") exceeds the limit of \(limit) bytes")
        }
        try deliver(bytes)
        delivered += Int64(bytes.count)
    }
}

/// Writes each body part to a file descriptor with `write(2)` on the event loop: the body never
/// leaves the pipeline, no copies, no hops (curl's model). Decoded bodies are written from the
/// decoders' buffers.
final class FileSink: BodySink {
    private let fd: Int32
    private let events: AsyncStream<BodyEvent>.Continuation
    private let progressInterval: TimeAmount
    private let eventLoop: EventLoop
    private var output: BodyOutput
    private var reported: Int64 = -1
    private var lastReport = NIODeadline.distantPast
    /// A report due at the end of the current interval, so the last bytes before a pause are
    /// never left unreported.
    private var trailingReport: Scheduled<Void>?

    /// For a segment: where the next byte goes, and where the segment ends.
    private var segment: (position: Int64, end: SegmentEnd)?

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

    func write(_ part: ByteBuffer) throws(SessionError) {
        var part = part
        var reachedEnd = false
        if let segment {
            let room = max(0, segment.end.value - segment.position)
            if Int64(part.readableBytes) >= room {
                part.moveWriterIndex(to: part.readerIndex + Int(room))
                reachedEnd = true
            }
        }
        var landed = 0
        do {
            try output.process(part) { bytes throws(SessionError) in
                try Self.writeAll(bytes, to: fd, at: segment?.position, landed: &landed)
            }
        } catch {
            output.creditLanded(landed)  // what did land still counts for a resume
            throw error
        }
        segment?.position += Int64(landed)
        if reachedEnd {
            abandon()
            throw SessionError.segmentEnded
        }
        let now = NIODeadline.now()
        if now - lastReport >= progressInterval {
            report(at: now)
        } else if trailingReport == nil {
            let sink = NIOLoopBound(self, eventLoop: eventLoop)
            trailingReport = eventLoop.scheduleTask(deadline: lastReport + progressInterval) {
                sink.value.trailingReport = nil
                if sink.value.reported != sink.value.output.received { sink.value.report(at: .now()) }
            }
        }
    }

    /// Writes all of `bytes` (at `offset` and on, when given), adding to `landed` what reached
    /// the file (also when it fails).
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int64? = nil,
                                 landed: inout Int) throws(SessionError) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let n = offset.map { pwrite(fd, pointer, remaining, off_t($0) + off_t(landed)) } ?? Glibc.write(fd, pointer, remaining)
            if n < 0 {
                if errno == EINTR { continue }
                throw SessionError.fileIO.with("write failed: \(String(cString: strerror(errno)))")
            }
            pointer += n
            remaining -= n
            landed += n
        }
    }

    private func report(at now: NIODeadline) {
        lastReport = now
        reported = output.received
        events.yield(.progress(output.received))
    }

    func finish() throws(SessionError) -> (received: Int64, decoded: Int64) {
        var landed = 0
        try output.finish { bytes throws(SessionError) in try Self.writeAll(bytes, to: fd, landed: &landed) }
        abandon()
        return (output.received, output.delivered)
    }

    func abandon() {
        trailingReport?.cancel()
        trailingReport = nil
        if reported != output.received { report(at: .now()) }
    }

    func acknowledge(_ count: Int) {}
}

/// Hands (decoded) body parts to the driver as byte arrays, pausing the connection while the
/// consumer is behind by more than the high watermark.
final class DataSink: BodySink {
    private let events: AsyncStream<BodyEvent>.Continuation
    private let highWatermark: Int
    private var outstanding = 0
    private var output: BodyOutput

    init(highWatermark: Int, transform: BodyTransform, events: AsyncStream<BodyEvent>.Continuation) {
        self.highWatermark = highWatermark
        self.events = events
        output = BodyOutput(transform)
    }

    var isPaused: Bool { outstanding > highWatermark }

    func write(_ part: ByteBuffer) throws(SessionError) {
        try output.process(part) { bytes throws(SessionError) in deliver(bytes) }
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        outstanding += bytes.count
        events.yield(.data(Array(bytes)))
    }

    func finish() throws(SessionError) -> (received: Int64, decoded: Int64) {
        try output.finish { bytes throws(SessionError) in deliver(bytes) }
        return (output.received, output.delivered)
    }

    func abandon() {}

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

    func finish() throws(SessionError) -> (received: Int64, decoded: Int64) { (total, total) }

    func abandon() {}

    func acknowledge(_ count: Int) {}
}

extension SinkSpec {
    func makeSink(eventLoop: EventLoop, events: AsyncStream<BodyEvent>.Continuation) -> BodySink {
        switch self {
        case .file(let fd, let interval, let transform, let segment):
            FileSink(fd: fd, progressInterval: interval, transform: transform, segment: segment, eventLoop: eventLoop, events: events)
        case .data(let mark, let transform): DataSink(highWatermark: mark, transform: transform, events: events)
        case .discard(let limit): DiscardSink(limit: limit)
        }
    }
}
