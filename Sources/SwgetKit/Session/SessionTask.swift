import NIOConcurrencyHelpers

/// One transfer in a ``Session``: the counterpart of NSURLSessionTask.
///
/// A task starts suspended; ``resume()`` runs it, ``cancel()`` stops it. Its life cycle is
/// reported to the session's delegate (see ``SessionDelegate``) and can be awaited with
/// ``completion()``. The properties are safe to read from any thread at any time.
public class SessionTask: @unchecked Sendable {
    /// The states of the seeds' task, in order.
    public enum State: Sendable, Equatable {
        case suspended, running, canceling, completed
    }

    /// Unique within its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: Request
    let session: Session

    struct Mutable {
        var state = State.suspended
        var currentRequest: Request
        var response: Response?
        var error: SessionError?
        var bytesReceived: Int64 = 0
        var bytesExpected: Int64?
        var cancellation: SessionError?
        var connection: HTTPConnection?
        var driver: Task<Void, Never>?
        var attempt = 1
        var waiters: [CheckedContinuation<SessionError?, Never>] = []
    }

    let mutable: NIOLockedValueBox<Mutable>

    init(session: Session, identifier: Int, request: Request) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.mutable = NIOLockedValueBox(Mutable(currentRequest: request))
    }

    public var state: State { mutable.withLockedValue { $0.state } }
    /// The request being sent now: differs from the original after redirects.
    public var currentRequest: Request { mutable.withLockedValue { $0.currentRequest } }
    /// The final response head, once received.
    public var response: Response? { mutable.withLockedValue { $0.response } }
    /// Why the task failed, once completed; nil while running or on success.
    public var error: SessionError? { mutable.withLockedValue { $0.error } }
    /// Body bytes received for the current response.
    public var countOfBytesReceived: Int64 { mutable.withLockedValue { $0.bytesReceived } }
    /// The attempt under way: 1, then one more for each retry.
    public var attempt: Int { mutable.withLockedValue { $0.attempt } }
    /// The announced body length of the current response, when known.
    public var countOfBytesExpectedToReceive: Int64? { mutable.withLockedValue { $0.bytesExpected } }

    /// Starts the task. Calling it again, or after ``cancel()``, does nothing.
    public func resume() {
        let start = mutable.withLockedValue { m -> Bool in
            guard m.state == .suspended else { return false }
            m.state = .running
            return true
        }
        guard start else { return }
        let driver = Task { await self.run() }
        mutable.withLockedValue { $0.driver = driver }
    }

    /// Stops the task: it completes with ``SessionError/cancelled``. A suspended task completes
    /// at once; a running one closes its connection and keeps what its destination holds.
    public func cancel() {
        cancel(because: .cancelled)
    }

    /// Waits for the task to complete and returns its error (nil on success). Resumes the task
    /// if it is still suspended.
    @discardableResult
    public func completion() async -> SessionError? {
        resume()
        return await withCheckedContinuation { continuation in
            let done = mutable.withLockedValue { m -> SessionError?? in
                if m.state == .completed { return .some(m.error) }
                m.waiters.append(continuation)
                return .none
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    // MARK: internals shared with the driver

    func cancel(because reason: SessionError) {
        let (connection, driver, wasSuspended) = mutable.withLockedValue { m -> (HTTPConnection?, Task<Void, Never>?, Bool) in
            switch m.state {
            case .completed, .canceling:
                return (nil, nil, false)
            case .suspended:
                m.state = .canceling
                m.cancellation = reason
                return (nil, nil, true)
            case .running:
                m.state = .canceling
                m.cancellation = reason
                return (m.connection, m.driver, false)
            }
        }
        connection?.close()
        driver?.cancel()
        if wasSuspended {
            Task { await self.complete(with: reason) }
        }
    }

    /// The driver's entry point: runs the transfer, then reports completion exactly once.
    private func run() async {
        var failure: SessionError?
        var timeout: Task<Void, Never>?
        if let limit = session.configuration.resourceTimeout {
            timeout = Task { [weak self] in
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                self?.cancel(because: SessionError.resourceTimedOut.with("transfer did not finish within \(limit)"))
            }
        }
        failure = await performWithRetries()
        timeout?.cancel()
        if let reason = mutable.withLockedValue({ $0.cancellation }) {
            failure = reason
        }
        await complete(with: await finalize(failure))
    }

    /// Runs `perform()` until it succeeds, fails permanently, or the retry policy gives up.
    /// Transient failures of GET and HEAD are retried after the policy's delay; a `.restart`
    /// (stored bytes unusable) runs again at once, at most three times.
    private func performWithRetries() async -> SessionError? {
        let policy = session.configuration.retryPolicy
        var attempt = 1
        var restarts = 0
        while true {
            do {
                try await perform()
                return nil
            } catch {
                if mutable.withLockedValue({ $0.cancellation }) != nil { return error }
                if error.code == .restart && restarts < 3 {
                    restarts += 1
                    continue
                }
                guard isIdempotent, RetryPolicy.isTransient(error) || error.code == .serverBusy,
                      let delay = policy.delay(afterAttempt: attempt, retryAfter: error.retryAfter,
                                               random: Double.random(in: 0..<1)) else {
                    return error
                }
                await session.delegate?.task(self, willRetryAfter: delay, error: error)
                try? await Task.sleep(for: delay)
                attempt += 1
                mutable.withLockedValue { $0.attempt = attempt }
            }
        }
    }

    /// GET and HEAD may be sent again without asking anyone.
    var isIdempotent: Bool {
        let method = originalRequest.method.uppercased()
        return method == "GET" || method == "HEAD"
    }

    /// True when the retry policy would allow another attempt after the current one.
    var canRetry: Bool {
        let attempt = mutable.withLockedValue { $0.attempt }
        return isIdempotent && session.configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: nil, random: 0) != nil
    }

    private func complete(with error: SessionError?) async {
        let alreadyDone = mutable.withLockedValue { m -> Bool in
            if m.state == .completed { return true }
            m.error = error
            m.connection = nil
            return false
        }
        guard !alreadyDone else { return }
        await session.delegate?.task(self, didCompleteWithError: error)
        let waiters = mutable.withLockedValue { m -> [CheckedContinuation<SessionError?, Never>] in
            m.state = .completed
            defer { m.waiters = [] }
            return m.waiters
        }
        waiters.forEach { $0.resume(returning: error) }
        session.taskDidComplete(self)
    }

    /// Hook for subclasses: the last word on the task's error before the delegate hears of
    /// completion (download tasks attach resume data and close their file here).
    func finalize(_ error: SessionError?) async -> SessionError? { error }

    /// Hook for subclasses: adjust the first request of each attempt (download tasks add
    /// `Range` and `If-Range` when they hold bytes).
    func prepare(_ request: Request) async throws(SessionError) -> Request { request }

    /// Hook for subclasses: look at the final response head before the delegate does. Returns
    /// true when the task is finished with it (the connection must then be released).
    func intercept(_ response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) -> Bool {
        false
    }

    /// Throws the cancellation reason if the task was cancelled.
    func checkCancelled() throws(SessionError) {
        if let reason = mutable.withLockedValue({ $0.cancellation }) { throw reason }
    }

    /// Hook for subclasses: consume the body of the final response. The connection must be
    /// released to the pool (reusable or not) before returning or throwing.
    func receiveBody(of response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) {
        session.pool.release(connection, reusable: false)
    }
}

/// A task whose body is delivered to the delegate in pieces (or collected, for
/// ``Session/data(for:)``): the counterpart of NSURLSessionDataTask. Content codings are undone
/// as the configuration says; the pieces are the decoded body.
public final class DataTask: SessionTask, @unchecked Sendable {
    let collects: Bool
    private let collected = NIOLockedValueBox<[UInt8]>([])

    init(session: Session, identifier: Int, request: Request, collects: Bool) {
        self.collects = collects
        super.init(session: session, identifier: identifier, request: request)
    }

    /// The body, for tasks made by ``Session/data(for:)``.
    var collectedBody: [UInt8] { collected.withLockedValue { $0 } }

    override func receiveBody(of response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) {
        var failure: SessionError?
        var ended = false
        var transform = BodyTransform()
        transform.decoding = BodyDecoding.judge(response, decodeContent: session.configuration.decodesContentEncoding,
                                                name: response.url.lastPathComponent).contentCodings
        do {
            try transform.bound(by: session.configuration.maximumBodyBytes, announced: response.expectedContentLength)
        } catch {
            session.pool.release(connection, reusable: false)
            throw error
        }
        await connection.streamBody(.data(highWatermark: 1 << 20, transform: transform)) { event in
            switch event {
            case .data(let bytes):
                mutable.withLockedValue { $0.bytesReceived += Int64(bytes.count) }
                if collects {
                    collected.withLockedValue { $0 += bytes }
                } else {
                    await session.delegate?.dataTask(self, didReceive: bytes)
                }
                connection.acknowledge(bytes.count)
            case .end:
                ended = true
            case .failed(let error):
                failure = error
            case .progress:
                break
            }
        }
        session.pool.release(connection, reusable: ended && framing.keepAlive)
        if let failure { throw failure }
        if !ended { throw SessionError.connectionClosed.with("body ended unexpectedly") }
    }
}
