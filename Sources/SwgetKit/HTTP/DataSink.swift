import NIOCore

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

    func write(_ part: ByteBuffer) throws(SessionError) -> SinkProgress {
        try output.process(part) { bytes throws(SessionError) in deliver(bytes) }
        return .more
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        outstanding += bytes.count
        events.yield(.data(Array(bytes)))
    }

    func finish() throws(SessionError) -> BodyEnd {
        try output.finish { bytes throws(SessionError) in deliver(bytes) }
        return BodyEnd(bytes: output.received, decoded: output.delivered)
    }

    func abandon() {}

    func acknowledge(_ count: Int) { outstanding -= count }
}
