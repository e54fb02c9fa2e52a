/// What the task driver hears while a body streams. Progress is throttled at the source, so the
/// stream carries a handful of events a second for a download however fast it runs.
enum BodyEvent: Sendable {
    /// Body bytes received so far, as sent (before content decoding).
    case progress(Int64)
    /// A piece of (decoded) body for a data task.
    case data([UInt8])
    /// The body ended, or the sink took all it wanted.
    case end(BodyEnd)
    case failed(SessionError)
}

/// How a body ended.
struct BodyEnd: Sendable, Equatable {
    /// Bytes received, as sent (before decoding).
    var bytes: Int64
    /// Bytes the sink put out after decoding (equal to `bytes` when nothing was decoded).
    var decoded: Int64
    /// The sink stopped before the body's end (a segment reached its end); the rest was left
    /// unread and the connection closed.
    var stoppedEarly = false
}
