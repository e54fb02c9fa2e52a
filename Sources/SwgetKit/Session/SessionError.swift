/// The one error type of SwgetKit: a struct around a private code, so new cases can be added
/// without breaking callers (the shape of AsyncHTTPClient's `HTTPClientError`).
///
/// Callers switch on ``category`` (which the command maps to its exit codes) and compare with
/// the documented static values; ``description`` is a one-line, human-readable cause.
public struct SessionError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Coarse classes of failure; the command maps each to one exit code.
    public enum Category: Sendable, Hashable {
        /// Nothing more specific applies.
        case generic
        /// Local file I/O: creating, writing or renaming the destination.
        case fileIO
        /// Name resolution, connect, reset, timeout, premature close.
        case network
        /// The server's certificate was not trusted, or the TLS handshake failed.
        case tls
        /// The server broke the protocol: bad framing, oversized headers, redirect loops.
        case `protocol`
        /// The URL or request cannot be used (unsupported scheme, no host).
        case usage
        /// The task was cancelled by its owner.
        case cancelled
    }

    enum Code: Sendable, Hashable {
        case unsupportedURL, unresolvableHost, connectFailed, connectionClosed, timedOut, readTimedOut, resourceTimedOut
        case tlsUntrusted, tlsHandshake, badResponse, headersTooLarge, tooManyRedirects, redirectLoop
        case badRedirect, fileIO, cancelled, sessionInvalidated, decodingFailed, tooLarge
        /// Internal: the server answered with a transient status; retry (never escapes a task).
        case serverBusy
        /// Internal: the stored bytes cannot be continued; start the transfer again at once.
        case restart
        /// Internal: a segment's sink reached the segment's end; the connection is closed.
        case segmentEnded
    }

    let code: Code
    /// A one-line explanation of this occurrence, without the URL.
    public let message: String
    /// For a failed download task whose bytes can be continued: what
    /// ``Session/downloadTask(withResumeData:)`` needs.
    public internal(set) var resumeData: ResumeData?
    /// The server's Retry-After, for ``Code/serverBusy``.
    var retryAfter: String?

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var category: Category {
        switch code {
        case .unsupportedURL, .sessionInvalidated: .usage
        case .unresolvableHost, .connectFailed, .connectionClosed, .timedOut, .readTimedOut, .resourceTimedOut: .network
        case .tlsUntrusted, .tlsHandshake: .tls
        case .badResponse, .headersTooLarge, .tooManyRedirects, .redirectLoop, .badRedirect, .restart, .decodingFailed: .protocol
        case .tooLarge: .generic
        case .serverBusy, .segmentEnded: .network
        case .fileIO: .fileIO
        case .cancelled: .cancelled
        }
    }

    public var description: String { message }

    /// Two errors are equal when they are the same kind of failure (messages may differ).
    public static func == (lhs: SessionError, rhs: SessionError) -> Bool { lhs.code == rhs.code }

    // MARK: documented values, for comparison with `==`

    /// The URL's scheme is not handled, or it has no host.
    public static let unsupportedURL = SessionError(.unsupportedURL, "unsupported URL")
    /// The host name did not resolve to any address.
    public static let unresolvableHost = SessionError(.unresolvableHost, "unable to resolve host")
    /// No address of the host accepted a connection.
    public static let connectFailed = SessionError(.connectFailed, "connection failed")
    /// The server closed the connection before the response was complete.
    public static let connectionClosed = SessionError(.connectionClosed, "connection closed early")
    /// Connecting took longer than the configuration's connect timeout.
    public static let timedOut = SessionError(.timedOut, "connect timed out")
    /// No byte arrived for longer than the idle read timeout.
    public static let readTimedOut = SessionError(.readTimedOut, "read timed out")
    /// The whole transfer took longer than the resource timeout.
    public static let resourceTimedOut = SessionError(.resourceTimedOut, "transfer timed out")
    /// The server's certificate chain was not trusted (or the trust challenge rejected it).
    public static let tlsUntrusted = SessionError(.tlsUntrusted, "certificate not trusted")
    /// The TLS handshake failed for another reason.
    public static let tlsHandshake = SessionError(.tlsHandshake, "TLS handshake failed")
    /// The response could not be parsed as HTTP/1.x.
    public static let badResponse = SessionError(.badResponse, "malformed response")
    /// The response head exceeded the header size bound.
    public static let headersTooLarge = SessionError(.headersTooLarge, "response headers too large")
    /// More redirects than the configuration's limit.
    public static let tooManyRedirects = SessionError(.tooManyRedirects, "too many redirects")
    /// A redirect led back to a URL already visited.
    public static let redirectLoop = SessionError(.redirectLoop, "redirect loop")
    /// A redirect's Location is missing, unparseable or points to a non-network scheme.
    public static let badRedirect = SessionError(.badRedirect, "bad redirect")
    /// Creating, writing or publishing the destination file failed.
    public static let fileIO = SessionError(.fileIO, "file I/O error")
    /// The body's content coding (or a decoded payload) was corrupt or truncated.
    public static let decodingFailed = SessionError(.decodingFailed, "corrupt compressed data")
    /// The body is larger than the configuration's ``SessionConfiguration/maximumBodyBytes``.
    public static let tooLarge = SessionError(.tooLarge, "file larger than the size limit")
    /// The task was cancelled.
    public static let cancelled = SessionError(.cancelled, "cancelled")
    /// The session was invalidated before the task could start.
    public static let sessionInvalidated = SessionError(.sessionInvalidated, "session invalidated")

    /// The same kind of error with a more specific message.
    func with(_ message: String) -> SessionError {
        var copy = SessionError(code, message)
        copy.resumeData = resumeData
        copy.retryAfter = retryAfter
        return copy
    }

    static func serverBusy(status: Int, retryAfter: String?) -> SessionError {
        var error = SessionError(.serverBusy, "server answered \(status)")
        error.retryAfter = retryAfter
        return error
    }

    static func restart(_ reason: String) -> SessionError { SessionError(.restart, reason) }

    static let segmentEnded = SessionError(.segmentEnded, "segment complete")
}
