/// Where a final response's body comes from: the HTTP connection it arrived on, a data
/// connection, a protocol handler's pieces. The body's sinks are the same for all of them.
protocol BodySource: Sendable {
    /// Streams the body into `spec`'s sink, handing each event to `handle` (events end with
    /// `.end` or `.failed`). Returns only when nothing more will be written to the sink.
    func streamBody(_ spec: SinkSpec, _ handle: (BodyEvent) async -> Void) async
    /// A data consumer took `count` delivered bytes (backpressure).
    func acknowledge(_ count: Int)
    /// Reads and drops the rest of the body (at most `limit` bytes); true when whatever carried
    /// it can carry another request.
    func drainBody(limit: Int64) async -> Bool
    /// Stops the transfer at once (a cancellation, or a segmented download that must restart).
    func abort()
}

extension HTTPConnection: BodySource {
    func abort() { close() }
}
