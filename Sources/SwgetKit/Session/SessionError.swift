#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one error type of SwgetKit: a struct around a private code, so new kinds of failure can
/// be added without breaking callers (the shape of AsyncHTTPClient's `HTTPClientError`). It
/// holds failures only: restarts, retries and segment ends are outcomes inside the engine, never
/// errors.
///
/// Callers look at ``category`` (which the command maps to its exit codes) and compare with the
/// documented static values (`error == .readTimedOut`); ``description`` is a one-line cause
/// without the URL, which ``url`` carries.
///
/// All of SwgetKit's throwing functions use typed throws: `catch` gives a `SessionError`
/// directly. Inside an unstructured `Task { }` closure, write `do throws(SessionError) { … }` or
/// cast in the `catch`.
public struct SessionError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Coarse classes of failure; the swget command maps each to one exit code. A struct with
    /// static members, so categories can be added without breaking `switch`es written today
    /// (they need a `default:`).
    public struct Category: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Nothing more specific applies (a size limit, for instance).
        public static let generic = Category("generic")
        /// Local file I/O: creating, writing or renaming the destination.
        public static let fileIO = Category("fileIO")
        /// Name resolution, connect, reset, timeout, premature close.
        public static let network = Category("network")
        /// The server's certificate was not trusted, or the TLS handshake failed.
        public static let tls = Category("tls")
        /// The server broke the protocol: bad framing, oversized headers, redirect loops.
        public static let `protocol` = Category("protocol")
        /// The URL or request cannot be used (unsupported scheme, no host, bad port).
        public static let usage = Category("usage")
        /// The task was cancelled by its owner.
        public static let cancelled = Category("cancelled")
        /// The server answered with an error status (4xx or 5xx); ``SessionError/response``
        /// holds its head. Only download tasks fail this way: for a data task an error status
        /// is a response like any other (as in NSURLSession). An FTP server's permanent
        /// refusal (``SessionError/ftpStatus``) is in this category too.
        public static let httpStatus = Category("httpStatus")
        /// Credentials were missing or refused.
        public static let authentication = Category("authentication")

        /// The category's name ("network", "httpStatus").
        public var description: String { name }
    }

    enum Code: Sendable, Hashable {
        case unsupportedURL, unresolvableHost, connectFailed, connectionClosed, timedOut, readTimedOut, resourceTimedOut
        case tlsUntrusted, tlsHandshake, badResponse, headersTooLarge, tooManyRedirects, redirectLoop
        case badRedirect, fileIO, cancelled, sessionInvalidated, decodingFailed, tooLarge, httpStatus
        case authenticationFailed, proxyAuthenticationRequired, misuse, cannotContinue, ftpStatus, bodyNotReplayable
    }

    let code: Code
    /// A one-line explanation of this occurrence, without the URL.
    public let message: String
    /// What only some errors carry, in one shared box: an error travels in events, actions and
    /// typed throws, and without the box each copy moved some 300 bytes.
    private var details: Details?

    /// The URL of the request that failed (after redirects), when the failure belongs to one.
    /// Its password, if it had one, is masked.
    public internal(set) var url: URL? {
        get { details?.fields.url }
        set { update { $0.url = newValue } }
    }
    /// The operating system's error number behind a file or network failure (`ENOSPC`,
    /// `ECONNREFUSED` …), when there was one.
    public internal(set) var underlyingErrno: Int32? {
        get { details?.fields.underlyingErrno }
        set { update { $0.underlyingErrno = newValue } }
    }
    /// For ``Category/httpStatus``: the response head the server sent.
    public internal(set) var response: Response? {
        get { details?.fields.response }
        set { update { $0.response = newValue } }
    }
    /// For a failed download task whose bytes can be continued: what
    /// ``Session/downloadTask(withResumeData:destination:)`` needs.
    public internal(set) var resumeData: ResumeData? {
        get { details?.fields.resumeData }
        set { update { $0.resumeData = newValue } }
    }

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    private struct Fields: Sendable {
        var url: URL?
        var underlyingErrno: Int32?
        var response: Response?
        var resumeData: ResumeData?
    }

    /// Immutable: a change makes a new box, so copies never share a mutation.
    private final class Details: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = details?.fields ?? Fields()
        change(&fields)
        details = Details(fields)
    }

    /// The class of failure.
    public var category: Category {
        switch code {
        case .unsupportedURL, .sessionInvalidated, .misuse: .usage
        case .unresolvableHost, .connectFailed, .connectionClosed, .timedOut, .readTimedOut, .resourceTimedOut: .network
        case .tlsUntrusted, .tlsHandshake: .tls
        case .badResponse, .headersTooLarge, .tooManyRedirects, .redirectLoop, .badRedirect, .decodingFailed: .protocol
        case .tooLarge, .cannotContinue, .bodyNotReplayable: .generic
        case .fileIO: .fileIO
        case .cancelled: .cancelled
        case .httpStatus, .ftpStatus: .httpStatus
        case .authenticationFailed, .proxyAuthenticationRequired: .authentication
        }
    }

    /// The message.
    public var description: String { message }

    /// Two errors are equal when they are the same kind of failure (messages may differ).
    public static func == (lhs: SessionError, rhs: SessionError) -> Bool { lhs.code == rhs.code }

    // MARK: documented values, for comparison with `==`

    /// The URL's scheme is not handled, it has no host, or its port is out of range.
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
    /// A download was answered with an error status; see ``response``.
    public static let httpStatus = SessionError(.httpStatus, "server error response")
    /// An FTP server refused the request with a permanent reply (`550` no such file or no
    /// access, another 5yz): the "server error response" of wget's exit code 8, in the same
    /// category as ``httpStatus``. The message quotes the reply; ``response`` is nil (an FTP
    /// reply code is not an HTTP status, so the retry rules for HTTP statuses never see it).
    public static let ftpStatus = SessionError(.ftpStatus, "FTP server error reply")
    /// The server (or proxy) refused the credentials, or asked for credentials none could give.
    public static let authenticationFailed = SessionError(.authenticationFailed, "authentication failed")
    /// A proxy answered CONNECT with 407 and the credentials it asked for could not be given.
    public static let proxyAuthenticationRequired = SessionError(.proxyAuthenticationRequired, "proxy authentication required")
    /// A file continued in place (wget's `-c` on an existing file) cannot be continued from
    /// the answer the server gave; the file is left as it was.
    public static let cannotContinue = SessionError(.cannotContinue, "cannot continue the file")
    /// The request body must be sent again (a 307/308 redirect, an authentication challenge, a
    /// retry) but cannot be: it came from a single-use stream such as standard input, and the
    /// delegate's ``SessionDelegate/task(_:needNewBodyStreamFor:)`` gave no new one.
    public static let bodyNotReplayable = SessionError(.bodyNotReplayable, "the request body cannot be sent again")
    /// The task was cancelled.
    public static let cancelled = SessionError(.cancelled, "cancelled")
    /// The API was used in a way that cannot work (awaiting a task's completion inside its own
    /// decision callback).
    public static let misuse = SessionError(.misuse, "invalid use of the API")
    /// The session was invalidated before the task could start.
    public static let sessionInvalidated = SessionError(.sessionInvalidated, "session invalidated")

    /// The same kind of error with a more specific message.
    func with(_ message: String) -> SessionError {
        var copy = SessionError(code, message)
        copy.details = details
        return copy
    }

    /// The same error, naming the request's URL (password masked) when it names none yet.
    func at(_ requestURL: URL) -> SessionError {
        guard url == nil else { return self }
        var copy = self
        copy.url = URLDisplay.masked(requestURL)
        return copy
    }

    /// The same error carrying the server's response head.
    func responding(_ response: Response) -> SessionError {
        var copy = self
        copy.response = response
        return copy
    }

    /// The same error with the system's error number.
    func errno(_ code: Int32) -> SessionError {
        var copy = self
        copy.underlyingErrno = code
        return copy
    }
}
