import NIOCore

/// Drops a bounded amount of body so a connection can be reused after a redirect.
final class DiscardSink: BodySink {
    private let limit: Int64
    private var total: Int64 = 0

    init(limit: Int64) { self.limit = limit }

    var isPaused: Bool { false }

    func write(_ part: ByteBuffer) throws(SessionError) -> SinkProgress {
        total += Int64(part.readableBytes)
        if total > limit { throw SessionError.badResponse.with("redirect body too large to drain") }
        return .more
    }

    func finish() throws(SessionError) -> BodyEnd { BodyEnd(bytes: total, decoded: total) }

    func abandon() {}

    func acknowledge(_ count: Int) {}
}
