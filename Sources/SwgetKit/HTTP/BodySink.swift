import NIOConcurrencyHelpers
import NIOCore

/// The event-loop side of a body transfer: where the parts of a response body go. A sink never
/// leaves its channel's event loop.
protocol BodySink: AnyObject {
    /// Takes one body part. Throwing aborts the transfer and closes the connection;
    /// ``SinkProgress/satisfied`` ends it early without an error.
    func write(_ part: ByteBuffer) throws(SessionError) -> SinkProgress
    /// True while the sink wants no more reads (backpressure).
    var isPaused: Bool { get }
    /// The body ended cleanly (or the sink was satisfied): flushes the decoders, which may find
    /// the encoded data truncated, and says how it ended.
    func finish() throws(SessionError) -> BodyEnd
    /// The transfer failed: reports the bytes received so far, decodes nothing more.
    func abandon()
    /// The driver acknowledged `count` delivered bytes (data sinks only).
    func acknowledge(_ count: Int)
}

/// Whether a sink wants more of the body.
enum SinkProgress: Equatable {
    case more
    /// The sink has all it wants (a segment reached its end).
    case satisfied
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

    func makeSink(eventLoop: EventLoop, events: AsyncStream<BodyEvent>.Continuation) -> BodySink {
        switch self {
        case .file(let fd, let interval, let transform, let segment):
            FileSink(fd: fd, progressInterval: interval, transform: transform, segment: segment, eventLoop: eventLoop, events: events)
        case .data(let mark, let transform): DataSink(highWatermark: mark, transform: transform, events: events)
        case .discard(let limit): DiscardSink(limit: limit)
        }
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
