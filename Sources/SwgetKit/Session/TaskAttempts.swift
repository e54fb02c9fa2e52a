#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How one attempt of a task ended, whatever the protocol.
enum LoadOutcome: Sendable {
    /// The task is done (the body was taken, the file published, or nothing was wanted).
    case finished
    /// The attempt failed; `retryAfter` is the server's `Retry-After`, if any.
    case failed(SessionError, retryAfter: String? = nil)
    /// The stored bytes cannot be continued: load again from zero.
    case restart(reason: String)
}

/// A task's attempts, as a value: retries after transient failures (capped exponential
/// backoff with jitter, `Retry-After` honoured) and restarts after stored bytes turned out
/// useless. ``TaskRunner`` performs the actions; TaskAttemptsTests tables them.
///
/// Only requests that may be sent again without asking anyone are retried once they were sent:
/// idempotent methods (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE) whose body, if
/// any, can be sent again (not a single-use stream such as standard input). Any other request
/// (a POST, a PATCH, an upload from standard input) is retried only after a failure that proves
/// the server saw nothing of it — the connection could not be made — because the server may
/// have acted on a request whose answer was lost (RFC 9110 §9.2.2, curl and browsers alike).
/// A busy answer (408, 429, 5xx) to such a request is its final answer.
struct TaskAttempts: Sendable {
    enum Action: Equatable, Sendable {
        /// Load (again: after a restart).
        case load
        /// Tell the delegate, wait `delay`, then load attempt number `attempt`.
        case retry(after: Duration, because: SessionError, attempt: Int)
        case fail(SessionError)
        case finish
    }

    let policy: RetryPolicy
    /// The method is idempotent and the body can be replayed: any transient failure is retried.
    let retryable: Bool
    /// The attempt under way, from 1.
    private(set) var attempt = 1
    private(set) var restarts = 0
    static let maxRestarts = 3

    init(policy: RetryPolicy, request: Request) {
        self.policy = policy
        retryable = Self.isIdempotent(request.method) && request.body?.isReplayable != false
    }

    /// GET, HEAD, OPTIONS, TRACE, PUT and DELETE (RFC 9110 §9.2.2): sending one twice has the
    /// effect of sending it once.
    static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(Request.uppercased(method: method))
    }

    /// True when a transient failure of the current attempt would be retried.
    var canRetry: Bool {
        retryable && policy.delay(afterAttempt: attempt, retryAfter: nil, random: 0) != nil
    }

    /// What follows `outcome`. `random` in 0..<1 spreads clients apart.
    mutating func ended(_ outcome: LoadOutcome, random: Double, now: Date = Date()) -> Action {
        switch outcome {
        case .finished:
            return .finish
        case .restart(let reason):
            guard restarts < Self.maxRestarts else {
                return .fail(SessionError.badResponse.with("\(reason) (gave up after \(Self.maxRestarts) restarts)"))
            }
            restarts += 1
            return .load
        case .failed(let error, let retryAfter):
            guard retryable || Self.failedBeforeSending(error), Self.isTransient(error),
                  let delay = policy.delay(afterAttempt: attempt, retryAfter: retryAfter, now: now, random: random) else {
                return .fail(error)
            }
            attempt += 1
            return .retry(after: delay, because: error, attempt: attempt)
        }
    }

    /// The request never left: no connection could be made (refused, unreachable, connect
    /// timeout). Retrying it cannot repeat anything the server did.
    static func failedBeforeSending(_ error: SessionError) -> Bool {
        error == SessionError.connectFailed || error == SessionError.timedOut
    }

    /// Worth another attempt: the network failed or stalled, or the server said it is busy.
    static func isTransient(_ error: SessionError) -> Bool {
        if error.category == .httpStatus, let status = error.response?.statusCode { return RetryPolicy.isTransient(status: status) }
        return RetryPolicy.isTransient(error)
    }
}
