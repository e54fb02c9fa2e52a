#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore

/// One transfer in a ``Session``: the counterpart of NSURLSessionTask.
///
/// A task starts suspended; ``resume()`` runs it, ``cancel()`` stops it. It reports its life
/// as ``TaskEvent`` values (on ``events`` and to the session delegate) and can be awaited with
/// ``completion()``. Every property is safe to read from any thread at any time, and every
/// method may be called from inside the task's own callbacks.
///
/// The class is not open; ``DataTask`` and ``DownloadTask`` add what their kind knows. (It is
/// `@unchecked Sendable` only because a non-final class cannot be checked: every stored
/// property is immutable, and all mutable state sits behind one lock.)
public class SessionTask: @unchecked Sendable {
    /// NSURLSessionTask's states, in order.
    public enum State: Sendable, Equatable {
        case suspended, running, canceling, completed
    }

    /// Unique within its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: Request
    let session: Session
    let delivery = EventDelivery()
    /// The event loop the transfer and its event deliveries run on, with
    /// ``SessionThreading/eventLoop`` threading (nil: Swift's global executor).
    let executor: EventLoopExecutor?

    /// The event loop a new connection of this task goes on: the transfer's own, or the next of
    /// the session's group.
    var connectionLoop: EventLoop { executor?.eventLoop ?? session.eventLoopGroup.next() }

    /// What the task and its transfer share, behind one lock.
    struct Status {
        var lifecycle = TaskLifecycle()
        var currentRequest: Request
        var response: Response?
        var bytesReceived: Int64 = 0
        var bytesExpected: Int64?
        var bytesSent: Int64 = 0
        var bytesExpectedToSend: Int64?
        var attempt = 1
        /// Why authentication ended in a refusal, when it did (the final answer is then a 401/407).
        var authenticationFailure: AuthenticationFailure?
        /// The delegate trusted a certificate the default evaluation refused: this task's
        /// answers do not count as verified HTTPS (HSTS learns nothing from them).
        var trustOverridden = false
        /// The connections in use (several for a segmented download), closed by a cancellation
        /// so that waiting reads end at once.
        var connections: [Int: HTTPConnection] = [:]
        var transfer: Task<Void, Never>?
        /// Waiters of ``completion()``: `afterDelivery` ones resume once `completed` was
        /// delivered, the others (callbacks of this task) when the transfer ended.
        var waiters: [(afterDelivery: Bool, continuation: CheckedContinuation<SessionError?, Never>)] = []
        var transferEnded = false
        var delivered = false
        /// Timings and counts, recorded at the edges of the transfer.
        var metrics = TaskMetrics()
    }

    let status: NIOLockedValueBox<Status>

    init(session: Session, identifier: Int, request: Request) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.executor = session.executorForNewTask()
        self.status = NIOLockedValueBox(Status(currentRequest: request))
    }

    /// Where the task is in its life.
    public var state: State { status.withLockedValue { $0.lifecycle.publicState } }
    /// The request being sent now: differs from the original after redirects.
    public var currentRequest: Request { status.withLockedValue { $0.currentRequest } }
    /// The final response head, once received.
    public var response: Response? { status.withLockedValue { $0.response } }
    /// Why the task failed, once completed; nil while running or on success.
    public var error: SessionError? {
        status.withLockedValue { status in
            if case .completed(let error) = status.lifecycle.state { return error }
            return nil
        }
    }
    /// Body bytes received for the current response (for a download, bytes in the file,
    /// including those kept from before).
    public var countOfBytesReceived: Int64 { status.withLockedValue { $0.bytesReceived } }
    /// The announced body length of the current response, when known.
    public var countOfBytesExpectedToReceive: Int64? { status.withLockedValue { $0.bytesExpected } }
    /// Request body bytes the socket took for the request under way (NSURLSessionTask's
    /// `countOfBytesSent`); a body sent again counts from zero.
    public var countOfBytesSent: Int64 { status.withLockedValue { $0.bytesSent } }
    /// The length of the request body under way, when known; nil without a body or for a
    /// stream of unknown length (NSURLSessionTask's `countOfBytesExpectedToSend`).
    public var countOfBytesExpectedToSend: Int64? { status.withLockedValue { $0.bytesExpectedToSend } }
    /// The attempt under way: 1, then one more for each retry.
    public var attempt: Int { status.withLockedValue { $0.attempt } }
    /// Timings and counts of the transfer so far; final once the task completed (read it after
    /// ``completion()`` or in the `completed` event).
    public var metrics: TaskMetrics { status.withLockedValue { $0.metrics } }

    /// The task's events from now on, ending after ``TaskEvent/completed(_:)``. Subscribe before
    /// ``resume()`` to see all of them; a subscriber that comes after completion gets
    /// `completed` alone. Each call makes a new, independent sequence.
    public var events: AsyncStream<TaskEvent> { delivery.subscribe() }

    /// Starts the task. Calling it again, or after ``cancel()``, does nothing.
    public func resume() {
        let start = status.withLockedValue { status in
            guard status.lifecycle.resume() == .start else { return false }
            status.metrics.fetchStart = .now
            return true
        }
        guard start else { return }
        let transfer = Task(executorPreference: executor) { await self.run() }
        status.withLockedValue { $0.transfer = transfer }
    }

    /// Stops the task: it completes with ``SessionError/cancelled``. A suspended task completes
    /// at once; a running one closes its connection. A download keeps its `.part` and hands out
    /// resume data in its error when the bytes can be continued.
    public func cancel() {
        cancel(because: .cancelled)
    }

    /// Waits for the task to complete (resuming it if it is still suspended); throws why it
    /// failed. Returns once the `completed` event was delivered to the delegate — or, when
    /// called from the task's own ``SessionDelegate/task(_:didEmit:)``, once the transfer ended.
    /// Throws ``SessionError/misuse`` when called inside one of the task's own decisions (the
    /// transfer is waiting for that decision).
    public func completion() async throws(SessionError) {
        if let error = await outcome() { throw error }
    }

    /// Like ``completion()``, returning the error instead of throwing it.
    public func outcome() async -> SessionError? {
        let me = ObjectIdentifier(self)
        if CallbackContext.deciding == me {
            return SessionError.misuse.with("completion() awaited inside the task's own decision callback")
        }
        let reentrant = CallbackContext.notifying == me
        resume()
        if reentrant { delivery.reentrantWait(1) }
        defer { if reentrant { delivery.reentrantWait(-1) } }
        return await withCheckedContinuation { continuation in
            let done = status.withLockedValue { status -> SessionError?? in
                if case .completed(let error) = status.lifecycle.state, reentrant ? status.transferEnded : status.delivered {
                    return .some(error)
                }
                status.waiters.append((!reentrant, continuation))
                return .none
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    // MARK: the transfer

    func cancel(because reason: SessionError) {
        let (action, connections, transfer) = status.withLockedValue { status in
            (status.lifecycle.cancel(reason), Array(status.connections.values), status.transfer)
        }
        switch action {
        case .completeNow(let error):
            Task { await self.finish(with: error) }
        case .stopTransfer:
            connections.forEach { $0.close() }
            transfer?.cancel()
        case .none:
            break
        }
    }

    /// The transfer's entry point: runs it, then reports completion exactly once.
    private func run() async {
        var timeout: Task<Void, Never>?
        if let limit = session.configuration.resourceTimeout {
            timeout = Task { [weak self] in
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                self?.cancel(because: SessionError.resourceTimedOut.with("transfer did not finish within \(limit)"))
            }
        }
        let error = await transfer()
        timeout?.cancel()
        await finish(with: error)
    }

    /// The kind's transfer. Returns its error, nil on success.
    func transfer() async -> SessionError? { nil }

    /// Records the end, emits `completed` and wakes the waiters.
    private func finish(with error: SessionError?) async {
        let final = status.withLockedValue { status -> SessionError?? in
            guard let final = status.lifecycle.transferEnded(error) else { return .none }
            status.metrics.taskEnd = .now
            status.metrics.retryCount = status.attempt - 1
            status.metrics.countOfResponseBodyBytesReceived = status.bytesReceived
            status.connections = [:]
            status.transferEnded = true
            return .some(final)
        }
        guard let final else { return }
        let early = status.withLockedValue { status in
            let early = status.waiters.filter { !$0.afterDelivery }
            status.waiters.removeAll { !$0.afterDelivery }
            return early
        }
        early.forEach { $0.continuation.resume(returning: final) }
        emit(.completed(final))
        await delivery.drained()
        let waiters = status.withLockedValue { status in
            status.delivered = true
            defer { status.waiters = [] }
            return status.waiters
        }
        waiters.forEach { $0.continuation.resume(returning: final) }
        session.taskDidComplete(self)
    }

    // MARK: helpers for the transfer

    /// Queues an event for the delegate and the subscribers.
    func emit(_ event: TaskEvent) {
        delivery.emit(event, for: self, to: session.listener)
    }

    /// Whether an event of `kind` would reach anyone (the delegate's ``SessionDelegate/eventKinds``,
    /// or a subscriber): ask before making one that costs something.
    func wants(_ kind: TaskEvent.Kinds) -> Bool {
        delivery.wants(kind, listener: session.listener)
    }

    /// Asks the delegate a question after every earlier event was delivered; nil without a
    /// delegate.
    func decide<T: Sendable>(_ question: (any SessionDelegate) async -> T) async -> T? {
        guard let delegate = session.delegate else { return nil }
        await delivery.drained()
        return await CallbackContext.$deciding.withValue(ObjectIdentifier(self)) {
            await question(delegate)
        }
    }

    /// Runs `body` with `connection` registered, so that a cancellation closes it. Returns
    /// the cancellation error instead when the task was cancelled before or during the body.
    func using<T>(_ connection: HTTPConnection, _ body: () async throws(SessionError) -> T) async throws(SessionError) -> T {
        let cancelled = status.withLockedValue { status -> SessionError? in
            if let reason = status.lifecycle.cancellation { return reason }
            status.connections[connection.id] = connection
            return nil
        }
        if let cancelled { throw cancelled }
        defer { status.withLockedValue { _ = $0.connections.removeValue(forKey: connection.id) } }
        return try await body()
    }

    /// Records an edge of the transfer in ``metrics`` (a few times per request, never per byte).
    func recordMetrics(_ record: (inout TaskMetrics) -> Void) {
        status.withLockedValue { record(&$0.metrics) }
    }

    /// The cancellation reason, if the task was cancelled.
    var cancellation: SessionError? { status.withLockedValue { $0.lifecycle.cancellation } }
}

/// A task whose body is delivered in pieces (``TaskEvent/data(_:)``), or collected for
/// ``Session/data(for:)``: the counterpart of NSURLSessionDataTask. Content codings are undone as
/// the configuration says; the pieces are the decoded body. An error status (4xx, 5xx) is a
/// response like any other: the task succeeds with it, as in NSURLSession.
public class DataTask: SessionTask, @unchecked Sendable {
    let collects: Bool
    let collected = NIOLockedValueBox<[UInt8]>([])

    init(session: Session, identifier: Int, request: Request, collects: Bool) {
        self.collects = collects
        super.init(session: session, identifier: identifier, request: request)
    }

    /// The body, for tasks made by ``Session/data(for:)``.
    var collectedBody: [UInt8] { collected.withLockedValue { $0 } }

    override func transfer() async -> SessionError? {
        await DataTransfer(task: self).run()
    }
}
