/// The decisions of a session's tasks, and one method that hears every task's events: the
/// delegates of NSURLSession (session, task, data and download delegates) in Swift shape.
///
/// ## Why one notification method
/// NSURLSession has a method per notification, each optional. In Swift every optional
/// requirement needs a default implementation, and a method written with a slightly different
/// signature (Foundation's `totalBytesExpectedToWrite: Int64`, `location: URL`) then compiles
/// and is silently never called. Notifications are therefore values of ``TaskEvent``, handled
/// in ``task(_:didEmit:)`` with a `switch` the compiler checks; only the few calls that need an
/// answer remain separate methods.
///
/// ## Contract
/// - **Order.** Events of one task reach ``task(_:didEmit:)`` one at a time, in the order
///   ``TaskEvent`` documents; a decision is asked only after every earlier event of that task
///   was delivered. Calls for different tasks may run concurrently: an implementation shared
///   by several tasks must be `Sendable`-safe.
/// - **Context.** Where the session's ``SessionThreading`` says. With `.concurrent` (the
///   default) nothing is called on a NIO event loop: a callback may block. With `.eventLoop`
///   every call for a task runs on the thread of the event loop that carries the task's
///   connections, with no thread switch, and must not block. Either way events are delivered by a task of their own, so a
///   slow ``task(_:didEmit:)`` that awaits delays later events of that task but never the
///   transfer: body bytes keep flowing to the file meanwhile. Decisions are awaited by the
///   transfer (it waits for the answer). A delegate whose event handling is short and
///   synchronous can take its events at once instead, with no task made for them: see
///   ``ImmediateEventDelegate``.
/// - **Re-entrancy.** Any method of a task or session may be called from any callback:
///   `cancel()`, `cancelProducingResumeData()` (which then returns the data held at that
///   moment), `resume()`, `completion()` from ``task(_:didEmit:)``, `invalidateAndCancel()`.
///   Awaiting a task's own `completion()` inside one of its *decisions* could never finish (the
///   task waits for the decision), so it throws ``SessionError/misuse`` at once.
/// - **Backpressure.** For data tasks, reading from the network pauses while more than 1 MiB
///   of delivered `data` events are not yet handled.
///
/// Every method has a default, so a delegate implements only what it needs.
public protocol SessionDelegate: Sendable {
    /// Every event of every task of the session (see ``TaskEvent`` for the order). Default:
    /// nothing.
    func task(_ task: SessionTask, didEmit event: TaskEvent) async

    /// The kinds of events this delegate hears, read once when the session is made. The
    /// session neither delivers the others to it nor, where one costs something to make (the
    /// file URL of `destinationCreated` and `finishedDownloading`), makes them when no
    /// ``SessionTask/events`` subscriber wants them either: what a delegate of NSURLSession
    /// gets by leaving a method out. Default: `.all`.
    var eventKinds: TaskEvent.Kinds { get }

    /// A new https connection presented `challenge` (server trust). Asked once per new
    /// connection, before its first request; not when the connection resumed a TLS session of
    /// this session (its server was checked when the session was made), nor when a pinned
    /// public key (``TLSSettings/pinnedPublicKey``) does not match, which fails whatever the
    /// answer. Default: `.performDefaultHandling`.
    func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition

    /// The server (401) or a proxy (407) asks for credentials: answer with a credential, default
    /// handling (the credential storage, then the request's credential or the URL's
    /// `user:password@` for its own origin, then ``SessionConfiguration/netrc``), no answer for
    /// this protection space, or cancel the task. A refused credential comes back here once
    /// more with `previousFailureCount` 1; after that the task fails. Default:
    /// `.performDefaultHandling`.
    func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> AuthChallengeDisposition

    /// A new https connection's server asked for a client certificate (see
    /// ``ClientCertificateChallenge``: asked once per host and port, the answer remembered).
    /// Asked during the handshake, after the server's certificate passed the server-trust
    /// checks. Default: `.performDefaultHandling` (``TLSSettings/clientIdentity``, or none).
    func task(_ task: SessionTask, didReceive challenge: ClientCertificateChallenge) async -> ClientCertificateDisposition

    /// The server redirected; `newRequest` is what the rules of RFC 9110 would send next (its
    /// header fields already follow the origin rules). Return `.follow(newRequest)` (or a
    /// changed request, whose changed fields then apply to that hop only) to continue, or
    /// `.refuse` to take `response` as the final answer. Default: follow.
    func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision

    /// The request body must be sent again (a 307/308 redirect, an authentication challenge, a
    /// retry), and it came from a ``BodyStream`` that cannot make a new stream (standard input):
    /// return a stream yielding the same bytes from the start, or nil to fail the task with
    /// ``SessionError/bodyNotReplayable`` (NSURLSession's `needNewBodyStream`). `request` is the
    /// request about to be sent. Never asked for data, files, forms or replayable streams
    /// (those are opened again), nor for a body that was withheld after `Expect: 100-continue`
    /// (it was never read). Default: nil.
    func task(_ task: SessionTask, needNewBodyStreamFor request: Request) async -> AsyncThrowingStream<[UInt8], any Error>?

    /// The final response head arrived. Return `.cancel` to stop the task (it completes with
    /// ``SessionError/cancelled``). Default: allow.
    func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition

    /// The download's body is itself gzip data (`application/gzip`, or a `.gz` name served as
    /// octet-stream): return true to store it decompressed, under its name without `.gz`
    /// (`.tgz` becomes `.tar`). NSURLDownload's `download:shouldDecodeSourceDataOfMIMEType:`.
    /// Asked at most once per task, after the response and before the destination is created;
    /// never for bytes that continue a stored part. A decoded payload, like any decoded body,
    /// restarts from zero when interrupted (see ``ResumeData``). Default: false.
    func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool
}

/// A delegate's answer to a redirect.
public enum RedirectDecision: Sendable, Equatable {
    /// Send this request next (usually the proposed one).
    case follow(Request)
    /// Do not follow: the redirect response becomes the task's final response.
    case refuse
}

/// A delegate's answer to an authentication challenge (NSURLSessionAuthChallengeDisposition).
public enum AuthChallengeDisposition: Sendable, Equatable {
    /// Answer with this credential.
    case useCredential(Credential)
    /// What happens without a delegate: the storage, the request's own credential, `.netrc`.
    case performDefaultHandling
    /// Stop the task; it completes with ``SessionError/cancelled``.
    case cancelAuthenticationChallenge
    /// Do not answer this protection space; another one the server offered may be tried.
    case rejectProtectionSpace
}

/// A session delegate that takes its events synchronously, on the thread that emits them, at
/// the moment they happen: ``task(_:didEmitNow:)`` is called instead of
/// ``SessionDelegate/task(_:didEmit:)``.
///
/// Delivering an event to an async ``SessionDelegate/task(_:didEmit:)`` takes a Swift task of
/// its own (so that a slow delegate never holds up the transfer); for a download of a small
/// file that machinery costs more than the download's own HTTP work. A delegate that only
/// updates counters, draws a progress line or writes a log line does not need it: conform to
/// this protocol and the session calls it directly.
///
/// The contract of ``SessionDelegate`` holds, with these differences:
/// - **Context.** The thread of whatever emitted the event: the transfer's (an event loop's
///   with ``SessionThreading/eventLoop``, a thread of Swift's global executor with
///   ``SessionThreading/concurrent``) or an event loop's during a TLS handshake. Return quickly
///   and never block: the transfer waits for the call.
/// - **Order.** As for every delegate: one event of a task at a time, in order. An event that
///   another thread emits meanwhile is delivered by the thread already delivering, after the
///   current call returns.
/// - **Re-entrancy.** Any method of the task or the session may be called; to await the task,
///   start a `Task` (the call itself cannot await).
public protocol ImmediateEventDelegate: SessionDelegate {
    /// Every event of every task of the session, delivered at once (see ``TaskEvent`` for the
    /// order).
    func task(_ task: SessionTask, didEmitNow event: TaskEvent)
}

extension ImmediateEventDelegate {
    /// Calls ``task(_:didEmitNow:)`` (the session itself never calls this one for an immediate
    /// delegate).
    public func task(_ task: SessionTask, didEmit event: TaskEvent) async { self.task(task, didEmitNow: event) }
}

/// A delegate's answer to a final response head.
public enum ResponseDisposition: Sendable, Equatable {
    /// Go on with the body.
    case allow
    /// Stop the task; it completes with ``SessionError/cancelled``.
    case cancel
}

extension SessionDelegate {
    /// Default: ignores the event.
    public func task(_ task: SessionTask, didEmit event: TaskEvent) async {}
    /// Default: every kind.
    public var eventKinds: TaskEvent.Kinds { .all }
    /// Default: `.performDefaultHandling` (the default evaluation's verdict).
    public func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition {
        .performDefaultHandling
    }
    /// Default: `.performDefaultHandling` (``TLSSettings/clientIdentity``, or no certificate).
    public func task(_ task: SessionTask, didReceive challenge: ClientCertificateChallenge) async -> ClientCertificateDisposition {
        .performDefaultHandling
    }
    /// Default: `.follow(newRequest)`.
    public func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision {
        .follow(newRequest)
    }
    /// Default: `.performDefaultHandling` (the credential storage, the request's credential or the
    /// URL's, then `.netrc`).
    public func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> AuthChallengeDisposition {
        .performDefaultHandling
    }
    /// Default: `.allow`.
    public func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition { .allow }
    /// Default: nil (a body that cannot be replayed fails the task).
    public func task(_ task: SessionTask, needNewBodyStreamFor request: Request) async -> AsyncThrowingStream<[UInt8], any Error>? {
        nil
    }
    /// Default: false (the gzip payload is stored as sent).
    public func downloadTask(_ task: DownloadTask, shouldDecodePayloadOfMIMEType mimeType: String?) async -> Bool { false }
}
