#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One attempt at a resource through its hops, as a value: send → head → decide (redirect,
/// end the attempt, deliver) → body. The HTTP loader (``ExchangeRunner``) feeds it events and
/// performs the actions it returns; nothing here touches a socket, a file or a clock, so every
/// transition is tested by tables (ExchangeTests). Retries and restarts belong to the task
/// (``TaskAttempts``); the hop reached by redirects stays for the next attempt, so a retry
/// goes where the last one ended.
///
/// ```
///   start ──► sending ──headReceived──┬── 3xx + Location ──► decideRedirect ──redirectDecided──┬─► followRedirect ─► sending
///                                     │                                                      └─► deliver (refused)
///                                     ├── 408/429/5xx, a retry allowed ──► endAttempt(error, Retry-After)
///                                     └── anything else ──► deliver
/// ```
///
/// Invariants: every request comes from ``HopRequest/make(original:target:additions:)`` (the
/// origin rule lives there); redirects follow RFC 9110 §15.4 and are bounded and loop-checked
/// (``RedirectChain``).
struct Exchange: Sendable {
    enum Phase: Equatable, Sendable {
        case idle
        case sending
        case awaitingRedirectDecision
        case delivering
        case ended
    }

    /// What the loader does next.
    enum Action: Sendable {
        /// Lease a connection for the request's origin, send the request, wait for the head.
        case send(Request)
        /// Ask the delegate whether to follow; answer with ``Exchange/redirectDecided(_:)``.
        /// `downgrade` is true for an https → http redirect (worth a warning).
        case decideRedirect(Response, proposed: Request, downgrade: Bool)
        /// Let the redirect's body go (reusing the connection when it is small), then send.
        case followRedirect(Request)
        /// The server is busy (408, 429, 5xx) and the task may retry: let the body go and end
        /// this attempt with `error`, honouring `retryAfter` (the server's `Retry-After`).
        case endAttempt(SessionError, retryAfter: String?)
        /// The server (401) or an absolute-form proxy (407) asks for credentials: run the
        /// authentication machine, then answer with ``Exchange/challengeAnswered(retry:)``.
        case challenge(Response, challenges: [AuthChallenge], isProxy: Bool)
        /// The final head of this attempt: the task takes the body.
        case deliver(Response)
        /// The attempt failed for good.
        case fail(SessionError)
    }

    let original: Request
    private(set) var phase = Phase.idle
    /// Where the next request goes; redirects move it, new attempts keep it.
    private(set) var target: HopTarget
    private(set) var chain: RedirectChain
    /// Range and validator fields of the current attempt (a resume), re-applied at every hop.
    private var additions: [(name: String, value: String)] = []
    /// Whether the task would retry a busy answer (else it is delivered).
    private var canRetry = false
    /// The redirect being decided: its response and the request proposed.
    private var pendingRedirect: (response: Response, proposed: Request)?
    /// The challenge being answered.
    private var pendingChallenge: Response?
    /// HSTS: the https URL an http URL must become before any request (nil: leave it).
    private let upgrade: @Sendable (URL) -> URL?

    /// `startingAt` continues a download at the URL its earlier run ended at (after redirects)
    /// instead of the original URL; the origin rule still compares with the original.
    init(original: Request, maxRedirects: Int, startingAt url: URL? = nil,
         upgrade: @escaping @Sendable (URL) -> URL? = { _ in nil }) {
        // An HSTS upgrade of the original URL is the same resource: the origin rule compares
        // later hops with the upgraded origin, so the user's credentials and cookies go with it.
        var original = original
        if let upgraded = upgrade(original.url) { original.url = upgraded }
        self.original = original
        self.upgrade = upgrade
        var target = HopTarget(original)
        if let url { target.url = url }
        if let upgraded = upgrade(target.url) { target.url = upgraded }
        self.target = target
        self.chain = RedirectChain(limit: maxRedirects, start: target.url)
    }

    /// The request the current hop sends, as the delegate sees it (stored cookies and
    /// credentials join it on the wire: ``wireRequest(context:)``).
    var currentRequest: Request { HopRequest.make(original: original, target: target, additions: additions) }

    /// The request of the current hop as sent, with what the session's stores give it.
    func wireRequest(context: HopContext) -> Request {
        HopRequest.make(original: original, target: target, additions: additions, context: context)
    }

    // MARK: events

    /// An attempt starts: the current hop, with the ranges the task asks for now. `canRetry`:
    /// the task has an attempt left for a busy answer.
    mutating func start(additions: [(name: String, value: String)] = [], canRetry: Bool = false) -> Action {
        self.additions = additions
        self.canRetry = canRetry
        phase = .sending
        return .send(currentRequest)
    }

    /// The response head of the current hop arrived. `viaForwardProxy`: the hop was sent to a
    /// forward proxy in absolute form, so a 407 is that proxy's challenge.
    mutating func headReceived(_ response: Response, viaForwardProxy: Bool = false) -> Action {
        guard phase == .sending else {
            phase = .ended
            return .fail(SessionError.badResponse.with("unexpected response head"))
        }
        if RedirectPolicy.isRedirect(status: response.statusCode), let location = response.headers["Location"] {
            var next: HopTarget
            do {
                next = try RedirectPolicy.nextTarget(after: target, status: response.statusCode, location: location)
                if let upgraded = upgrade(next.url) { next.url = upgraded }
            } catch {
                phase = .ended
                return .fail(error)
            }
            let proposed = HopRequest.make(original: original, target: next, additions: additions)
            pendingRedirect = (response, proposed)
            phase = .awaitingRedirectDecision
            let downgrade = target.url.scheme?.lowercased() == "https" && next.url.scheme?.lowercased() == "http"
            return .decideRedirect(response, proposed: proposed, downgrade: downgrade)
        }
        let isProxy = response.statusCode == 407 && viaForwardProxy
        if response.statusCode == 401 || isProxy {
            let field = isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"
            let challenges = AuthChallenge.parse(fields: response.headers.values(for: field))
            if !challenges.isEmpty {
                pendingChallenge = response
                phase = .awaitingRedirectDecision
                return .challenge(response, challenges: challenges, isProxy: isProxy)
            }
        }
        if canRetry, RetryPolicy.isTransient(status: response.statusCode) {
            phase = .ended
            let reason = SessionError.httpStatus.with("server answered \(response.statusCode) \(DisplayText.sanitize(response.reasonPhrase))")
            return .endAttempt(reason.responding(response), retryAfter: response.headers["Retry-After"])
        }
        phase = .delivering
        return .deliver(response)
    }

    /// The delegate's answer to ``Action/decideRedirect(_:proposed:downgrade:)``; nil when
    /// there is no delegate (follow).
    mutating func redirectDecided(_ decision: RedirectDecision?) -> Action {
        guard phase == .awaitingRedirectDecision, let pending = pendingRedirect else {
            phase = .ended
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
                phase = .ended
                return .fail(error)
            }
            target = next
            phase = .sending
            return .followRedirect(currentRequest)
        }
    }

    /// The authentication machine decided: send the same request again with the credential
    /// (`retry`), or take the challenge as the final answer.
    mutating func challengeAnswered(retry: Bool) -> Action {
        guard phase == .awaitingRedirectDecision, let response = pendingChallenge else {
            phase = .ended
            return .fail(SessionError.badResponse.with("no challenge to answer"))
        }
        pendingChallenge = nil
        if retry {
            phase = .sending
            return .send(currentRequest)
        }
        phase = .delivering
        return .deliver(response)
    }

    /// The attempt is over (the body was taken, or it failed).
    mutating func ended() {
        phase = .ended
    }

    /// A request for `range`-like fields at the current hop (a segment of a split download):
    /// the same URL, method and origin rules as the hop itself.
    func request(adding fields: [(name: String, value: String)], context: HopContext = HopContext()) -> Request {
        HopRequest.make(original: original, target: target, additions: fields, context: context)
    }
}
