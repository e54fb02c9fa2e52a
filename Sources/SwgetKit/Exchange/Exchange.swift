#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One resource's life through its hops, as a value: send → head → decide (redirect, retry,
/// deliver) → body → done. The task driver feeds it events and performs the actions it
/// returns; nothing here touches a socket, a file or a clock, so every transition is tested by
/// tables (ExchangeTests).
///
/// ```
///            start / retryNow / restart
///                      │
///                      ▼
///  ┌──────────────► sending ──failed──► retry(after:) ─► (wait) ─► retryNow
///  │                   │                     or fail
///  │              headReceived
///  │        ┌──────────┼──────────────┬───────────────────┐
///  │   3xx+Location  408/429/5xx   other status        (the body)
///  │        ▼          ▼              ▼
///  │  decideRedirect  retry(after:)  deliver ──bodyFailed──► retry(after:) or fail
///  │        │                          │
///  │   redirectDecided                 bodyEnded ──► finished
///  └── followRedirect    or deliver (refused)
/// ```
///
/// Invariants: every request comes from ``HopRequest/make(original:target:additions:)`` (the
/// origin rule lives there); redirects follow RFC 9110 §15.4 and are bounded and loop-checked
/// (``RedirectChain``); only idempotent requests (RFC 9110 §9.2.2) are retried, at most as the
/// ``RetryPolicy`` allows; a restart (stored bytes that cannot be continued) happens at most
/// ``maxRestarts`` times per task.
struct Exchange: Sendable {
    enum Phase: Equatable, Sendable {
        case idle
        case sending
        case awaitingRedirectDecision
        case delivering
        case waitingToRetry
        case finished
        case failed
    }

    /// What the driver does next.
    enum Action: Sendable {
        /// Lease a connection for the request's origin, send the request, wait for the head.
        case send(Request)
        /// Ask the delegate whether to follow; answer with ``Exchange/redirectDecided(_:)``.
        /// `downgrade` is true for an https → http redirect (worth a warning).
        case decideRedirect(Response, proposed: Request, downgrade: Bool)
        /// Let the redirect's body go (reusing the connection when it is small), then send.
        case followRedirect(Request)
        /// Let the connection go, report the retry, wait `delay`, then call ``Exchange/retryNow(additions:)``.
        case retry(after: Duration, because: SessionError)
        /// The final head: the task takes the body (and may still ``restart(_:additions:)``).
        case deliver(Response)
        /// The task is over.
        case fail(SessionError)
    }

    let original: Request
    let retryPolicy: RetryPolicy
    static let maxRestarts = 3

    private(set) var phase = Phase.idle
    /// Where the next request goes; redirects move it, retries keep it.
    private(set) var target: HopTarget
    private(set) var chain: RedirectChain
    /// The attempt under way: 1, then one more for each retry.
    private(set) var attempt = 1
    private(set) var restarts = 0
    /// Range and validator fields of the current attempt (a resume), re-applied at every hop.
    private var additions: [(name: String, value: String)] = []
    /// The redirect being decided: its response and the request proposed.
    private var pendingRedirect: (response: Response, proposed: Request)?

    /// `startingAt` continues a download at the URL its earlier run ended at (after redirects)
    /// instead of the original URL; the origin rule still compares with the original.
    init(original: Request, maxRedirects: Int, retryPolicy: RetryPolicy, startingAt url: URL? = nil) {
        self.original = original
        self.retryPolicy = retryPolicy
        var target = HopTarget(original)
        if let url { target.url = url }
        self.target = target
        self.chain = RedirectChain(limit: maxRedirects, start: target.url)
    }

    /// The request the current hop sends.
    var currentRequest: Request { HopRequest.make(original: original, target: target, additions: additions) }

    /// RFC 9110 §9.2.2: these may be sent again without asking anyone.
    var isIdempotent: Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(original.method.uppercased())
    }

    // MARK: events

    /// The first request of the task.
    mutating func start(additions: [(name: String, value: String)] = []) -> Action {
        self.additions = additions
        phase = .sending
        return .send(currentRequest)
    }

    /// The response head of the current hop arrived.
    mutating func headReceived(_ response: Response, random: Double = 0.5) -> Action {
        guard phase == .sending else { return failed(SessionError.badResponse.with("unexpected response head"), random: random) }
        if RedirectPolicy.isRedirect(status: response.statusCode), let location = response.headers["Location"] {
            let next: HopTarget
            do {
                next = try RedirectPolicy.nextTarget(after: target, status: response.statusCode, location: location)
            } catch {
                phase = .failed
                return .fail(error)
            }
            let proposed = HopRequest.make(original: original, target: next, additions: additions)
            pendingRedirect = (response, proposed)
            phase = .awaitingRedirectDecision
            let downgrade = target.url.scheme?.lowercased() == "https" && next.url.scheme?.lowercased() == "http"
            return .decideRedirect(response, proposed: proposed, downgrade: downgrade)
        }
        if RetryPolicy.isTransient(status: response.statusCode), isIdempotent,
           let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: response.headers["Retry-After"], random: random) {
            phase = .waitingToRetry
            let reason = SessionError.httpStatus.with("server answered \(response.statusCode) \(response.reasonPhrase)")
            return .retry(after: delay, because: reason.responding(response))
        }
        phase = .delivering
        return .deliver(response)
    }

    /// The delegate's answer to ``Action/decideRedirect(_:proposed:downgrade:)``; nil when
    /// there is no delegate (follow).
    mutating func redirectDecided(_ decision: RedirectDecision?) -> Action {
        guard phase == .awaitingRedirectDecision, let pending = pendingRedirect else {
            phase = .failed
            return .fail(SessionError.badResponse.with("no redirect to decide"))
        }
        pendingRedirect = nil
        switch decision ?? .follow(pending.proposed) {
        case .refuse:
            phase = .delivering
            return .deliver(pending.response)
        case .follow(let chosen):
            let next = chosen == pending.proposed
                ? RedirectPolicy.target(of: pending.proposed)
                : HopRequest.target(chosen: chosen, proposed: pending.proposed)
            do {
                try chain.advance(to: next.url)
            } catch {
                phase = .failed
                return .fail(error)
            }
            target = next
            phase = .sending
            return .followRedirect(currentRequest)
        }
    }

    /// The transfer failed (connect, send, head or body). Transient failures of idempotent
    /// requests are retried while the policy allows.
    mutating func failed(_ error: SessionError, random: Double = 0.5) -> Action {
        guard phase != .finished, phase != .failed else { return .fail(error) }
        if isIdempotent, RetryPolicy.isTransient(error),
           let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: nil, random: random) {
            phase = .waitingToRetry
            return .retry(after: delay, because: error)
        }
        phase = .failed
        return .fail(error)
    }

    /// After a retry's wait: the same hop again, with the ranges the task asks for now.
    mutating func retryNow(additions: [(name: String, value: String)] = []) -> Action {
        attempt += 1
        self.additions = additions
        phase = .sending
        return .send(currentRequest)
    }

    /// The stored bytes cannot be continued (the answer was not the same file): ask again,
    /// without ranges unless the task gives new ones. Not an attempt of the retry policy.
    mutating func restart(_ reason: String, additions: [(name: String, value: String)] = []) -> Action {
        guard restarts < Self.maxRestarts else {
            phase = .failed
            return .fail(SessionError.badResponse.with("\(reason) (gave up after \(Self.maxRestarts) restarts)"))
        }
        restarts += 1
        self.additions = additions
        phase = .sending
        return .send(currentRequest)
    }

    /// The body was received completely (or the task finished with the response).
    mutating func finished() {
        phase = .finished
    }

    /// A request for `range`-like fields at the current hop (a segment of a split download):
    /// the same URL, method and origin rules as the hop itself.
    func request(adding fields: [(name: String, value: String)]) -> Request {
        HopRequest.make(original: original, target: target, additions: fields)
    }
}
