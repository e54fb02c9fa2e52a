/// What a task found out about its own timing, the counterpart of URLSessionTaskMetrics (and of
/// curl's `time_*` values): instants on the continuous clock, recorded at the edges of the
/// transfer (connection opened, TLS handshake done, request sent, response head received), never
/// per byte. Read it from ``SessionTask/metrics``; it is final once the task completed.
///
/// The phase instants describe the *last* request of the task (after redirects and retries, the
/// one whose response was delivered); `redirectCount`, `connectionsOpened` and `retryCount`
/// count over the whole task. An instant is nil when its phase did not happen: no TLS for
/// http, no lookup for an IP address or a reused connection, no response after a failure.
/// On a reused connection `connectEnd` is the moment the connection was taken from the pool
/// (as curl reports it), and `reusedConnection` is true.
public struct TaskMetrics: Sendable, Equatable {
    /// The task started (``SessionTask/resume()``).
    public var fetchStart: ContinuousClock.Instant?
    /// The host name was resolved, for a new connection to a named host.
    public var domainLookupEnd: ContinuousClock.Instant?
    /// The connection (TCP, and the proxy's tunnel when there is one) is up.
    public var connectEnd: ContinuousClock.Instant?
    /// The TLS handshake with the origin completed (https only, new connections only).
    public var secureConnectionEnd: ContinuousClock.Instant?
    /// The request head was handed to the connection.
    public var requestStart: ContinuousClock.Instant?
    /// The response head arrived.
    public var responseStart: ContinuousClock.Instant?
    /// The last redirect was followed: the hop of the final request starts (nil without a
    /// redirect).
    public var redirectEnd: ContinuousClock.Instant?
    /// The task completed, successfully or not.
    public var taskEnd: ContinuousClock.Instant?
    /// Redirects followed.
    public var redirectCount = 0
    /// Attempts after the first (retries after transient failures).
    public var retryCount = 0
    /// New connections the task opened (a reused one is not counted).
    public var connectionsOpened = 0
    /// The last request went out on a connection kept from an earlier request.
    public var reusedConnection = false
    /// The peer's address and port of the last connection, as numbers (`127.0.0.1`, `::1`):
    /// the origin's, or the proxy's when the connection goes through one.
    public var remoteAddress: String?
    public var remotePort: Int?
    /// Our own end of the last connection.
    public var localAddress: String?
    public var localPort: Int?
    /// Body bytes received for the final response, as ``SessionTask/countOfBytesReceived``
    /// counts them when the task ended (a resumed download counts the bytes kept from before).
    public var countOfResponseBodyBytesReceived: Int64 = 0
    /// Bytes of the final response's head as parsed (status line and fields, with CRLFs).
    public var countOfResponseHeaderBytesReceived: Int64 = 0

    /// Metrics of a task that has not started.
    public init() {}

    /// The time from ``fetchStart`` to the instant at `phase`, nil when either is unknown.
    public func elapsed(_ phase: KeyPath<TaskMetrics, ContinuousClock.Instant?>) -> Duration? {
        guard let start = fetchStart, let end = self[keyPath: phase] else { return nil }
        return end - start
    }
}
