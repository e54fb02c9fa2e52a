#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The final response of an attempt, with its body still to take.
struct FinalResponse: Sendable {
    let response: Response
    /// How the body is delimited, and whether the connection may carry another request.
    let framing: ResponseFraming
    /// The whole body, when it arrived with the head (a small response).
    let completeBody: [ByteBuffer]?
    /// Bytes followed the complete body on the wire: the connection is not reused.
    let trailingGarbage: Bool
    /// Where the rest of the body comes from (leased for the duration of
    /// ``ResponseConsumer/consume(_:)``).
    let body: any BodySource
}

/// What a task does with the final response of an attempt: a data task collects or hands on
/// the body, a download task judges a resume and writes a file.
protocol ResponseConsumer: AnyObject {
    /// Range and validator fields the next request carries (a resume); empty for none.
    func additions() -> [(name: String, value: String)]
    /// Takes the body of `final`. Runs inside the connection's lease: the connection goes back
    /// to the pool (or is closed) when this returns.
    func consume(_ final: FinalResponse) async -> Consumed
}

/// How consuming a final response ended.
enum Consumed {
    /// The task is done with the response; the connection may carry another request when
    /// `reusable`.
    case done(reusable: Bool)
    /// The stored bytes cannot be continued: ask again from zero.
    case restart(reason: String, reusable: Bool)
    /// The transfer failed (the task decides whether to retry).
    case failed(SessionError, reusable: Bool)
}

/// The HTTP(S) loader: performs an ``Exchange``'s actions for one task — leases connections,
/// sends each hop's request, asks the delegate about redirects — and hands the final response
/// of each attempt to the task's ``ResponseConsumer``. Used from the task's own Swift task only;
/// the hop reached by redirects stays for the next attempt.
final class ExchangeRunner: Loader {
    let task: SessionTask
    private(set) var exchange: Exchange
    var session: Session { task.session }
    /// The authentication flow of this task (401 and 407), across its hops and attempts.
    var authentication = AuthenticationState()
    /// The answer to the last challenge, sent with the next request of the hop.
    var pendingAuthorization: (field: String, value: String)?
    /// Why authentication ended the task, when it did.
    var authenticationFailure: AuthenticationFailure?
    /// The answer to a proxy's 407, for every later connection through it (CONNECT) or request
    /// to it (absolute form).
    var proxyAuthorization: String?
    /// The stream a stream body comes from, kept until a send consumes it
    /// (ExchangeRunner+RequestBody.swift).
    var bodyStream: BodyStreamSlot?
    /// Why the body is sent again, for the error when it cannot be (a redirect, a challenge, a retry).
    var resendReason = "send it again"
    /// The server answered `Expect: 100-continue` with 417: later requests go without it.
    var expectRefused = false
    /// Attempts loaded so far.
    private var loads = 0

    init(task: SessionTask, startingAt url: URL? = nil) {
        self.task = task
        let hsts = task.session.configuration.hsts
        exchange = Exchange(original: task.originalRequest, maxRedirects: task.session.configuration.maxRedirects,
                            startingAt: url, upgrade: { url in hsts?.upgrade(url) })
    }

    func load(additions: [(name: String, value: String)], canRetry: Bool, consumer: some ResponseConsumer) async -> LoadOutcome {
        var action = exchange.start(additions: additions, canRetry: canRetry)
        loads += 1
        if loads > 1 { resendReason = "retry the request" }
        while true {
            if let reason = task.cancellation { return .failed(reason) }
            switch action {
            case .send(let request), .followRedirect(let request):
                task.status.withLockedValue { $0.currentRequest = request }
                switch await hop(request, consumer) {
                case .next(let next): action = next
                case .ended(let outcome): return outcome
                }
            case .fail(let error):
                return .failed(error.at(exchange.target.url))
            case .endAttempt(let error, let retryAfter):
                return .failed(error.at(exchange.target.url), retryAfter: retryAfter)
            case .decideRedirect, .deliver, .challenge:
                return .failed(SessionError.badResponse.with("internal error: \(action) outside a hop").at(exchange.target.url))
            }
        }
    }

    /// Ranges of the current resource, for segmented downloads.
    var segmentFetcher: SegmentFetcher? {
        HTTPSegmentFetcher(task: task, exchange: exchange, proxyAuthorization: proxyAuthorization)
    }

    // MARK: one hop

    /// What a hop leads to.
    private enum HopResult {
        case next(Exchange.Action)
        case ended(LoadOutcome)
    }

    /// Sends `request` on a leased connection and handles its answer. A reused keep-alive
    /// connection that the server closed meanwhile is replaced once, transparently.
    private func hop(_ request: Request, _ consumer: some ResponseConsumer) async -> HopResult {
        var attempt = 0
        while attempt < 2 + AuthenticationState.maximumChallenges {
            defer { attempt += 1 }
            do {
                switch try await onConnection(request, consumer, replacingStale: attempt == 0) {
                case .stale: continue
                case .result(let result): return result
                }
            } catch {
                if error == SessionError.proxyAuthenticationRequired, let response = error.response,
                   await answerProxyChallenge(response, request: request) {
                    continue
                }
                exchange.ended()
                return .ended(.failed(task.cancellation ?? error.at(request.url)))
            }
        }
        return .ended(.failed(SessionError.connectionClosed.with("server closed the connection without a response").at(request.url)))
    }

    private enum HopOutcome {
        /// A reused connection was found closed before any answer: try a new one.
        case stale
        case result(HopResult)
    }

    private func onConnection(_ request: Request, _ consumer: some ResponseConsumer,
                              replacingStale: Bool) async throws(SessionError) -> HopOutcome {
        var context = context(for: request)
        let plan = try await ConnectionPlan.make(for: request, task: task, proxyAuthorization: proxyAuthorization)
        context.viaForwardProxy = plan.absoluteForm
        context.proxyAuthorization = plan.proxyAuthorization
        context.withoutExpectation = expectRefused
        let session = self.session
        let task = self.task
        // Opened for every send: files again, streams only when the last send consumed them.
        var body: OutgoingBody?
        if let requestBody = request.body { body = try await openBody(requestBody, for: request) }
        return try await session.pool.withConnection(plan.key, on: task.executor?.eventLoop, connect: { () async throws(SessionError) -> HTTPConnection in
            Self.recordConnecting(plan: plan, task: task)
            let connection = try await HTTPConnection.connect(host: plan.target.host, origin: plan.target.origin, settings: plan.settings,
                                                              on: task.connectionLoop,
                                                              lookupEnded: { task.recordMetrics { $0.domainLookupEnd = .now } })
            task.recordMetrics { $0.connectEnd = .now }
            return connection
        }) { connection, reused async throws(SessionError) -> (HopOutcome, reusable: Bool) in
            try await task.using(connection) { () async throws(SessionError) -> (HopOutcome, reusable: Bool) in
                Self.recordConnection(connection, reused: reused, plan: plan, task: task)
                if !reused, let tunnel = connection.tunnelResponse { task.emit(.proxyTunnel(tunnel)) }
                let wire = exchange.wireRequest(context: context)
                let framing = framing(of: wire, body: body)
                let received: ReceivedHead
                do throws(SessionError) {
                    received = try await Self.send(wire, body: body, framing: framing, progress: bodyProgress(body),
                                                   plan: plan, on: connection, reused: reused, session: session, task: task)
                } catch {
                    if reused && replacingStale && error == SessionError.connectionClosed && mayResend(wire, body: body) {
                        return (.stale, false)
                    }
                    throw error
                }
                if received.head.status.code == 417, framing.expectContinue, !expectRefused {
                    // RFC 9110 §10.1.1: repeat the request without the expectation.
                    expectRefused = true
                    return (.stale, false)
                }
                let (result, reusable) = try await answer(received, to: wire, on: connection, viaForwardProxy: plan.absoluteForm, consumer)
                return (.result(result), reusable && !received.requestBodyWithheld)
            }
        }
    }

    /// Fetches `request` (a segment's range) on a leased connection to its origin and hands the
    /// answer to `body`, which returns its result and whether the connection may be reused. No
    /// redirect is followed: the caller judges the answer.
    static func fetch<T>(_ request: Request, for task: SessionTask, proxyAuthorization: String?,
                         _ body: (FinalResponse) async -> (T, reusable: Bool)) async throws(SessionError) -> T {
        let plan = try await ConnectionPlan.make(for: request, task: task, proxyAuthorization: proxyAuthorization)
        let session = task.session
        var request = request
        if plan.absoluteForm, let value = plan.proxyAuthorization { request.headers.set("Proxy-Authorization", value) }
        let sent = request
        return try await session.pool.withConnection(plan.key, on: task.executor?.eventLoop, connect: { () async throws(SessionError) in
            try await HTTPConnection.connect(host: plan.target.host, origin: plan.target.origin, settings: plan.settings,
                                             on: task.connectionLoop)
        }) { connection, reused async throws(SessionError) -> (T, reusable: Bool) in
            try await task.using(connection) { () async throws(SessionError) -> (T, reusable: Bool) in
                let received = try await send(sent, plan: plan, on: connection, reused: reused, session: session, task: nil)
                let final = try Self.final(received, to: request, original: task.originalRequest, on: connection)
                let (result, reusable) = await body(final)
                return (result, reusable && final.framing.keepAlive && !received.trailingGarbage)
            }
        }
    }

    /// Sends the request and waits for the head. On a new connection, a head that is slow to
    /// come lets our own idle connections to the same server go: a server that serves one
    /// connection at a time answers only once they are closed.
    /// `task` is the task whose metrics and debug events record the exchange: nil for the
    /// ranges of a segmented download (the task's own request has recorded them).
    private static func send(_ request: Request, body: OutgoingBody? = nil, framing: RequestFraming? = nil,
                             progress: BodyProgress? = nil, plan: ConnectionPlan, on connection: HTTPConnection,
                             reused: Bool, session: Session, task: SessionTask?) async throws(SessionError) -> ReceivedHead {
        let key = plan.key
        let head = plan.target.requestHead(for: request, defaultHeaders: session.configuration.defaultHeaders,
                                           absoluteForm: plan.absoluteForm, framing: framing)
        if let task {
            if session.configuration.emitsDebugEvents {
                task.emit(.debug(.requestSent(method: head.method.rawValue, target: head.uri, version: Self.versionText(head.version),
                                              headers: HeaderFields(fields: head.headers))))
            }
            task.recordMetrics { $0.requestStart = .now }
        }
        var starvation: RepeatedTask?
        // Cancelling a repeated task from off its loop is asynchronous: a run already queued
        // could close the connection this request parks a moment later. The flag, set under
        // the lock the closing runs under, stops that run before the connection goes back.
        let answered = NIOLockedValueBox(false)
        if !reused {
            let pool = session.pool
            starvation = connection.channel.eventLoop.scheduleRepeatedTask(initialDelay: Self.starvationDelay,
                                                                           delay: Self.starvationDelay) { _ in
                answered.withLockedValue { if !$0 { pool.closeIdleConnections(to: key) } }
            }
        }
        defer {
            answered.withLockedValue { $0 = true }
            starvation?.cancel()
        }
        let wait = framing?.expectContinue == true ? session.configuration.expectContinueTimeout.timeAmount : nil
        let received = try await connection.send(head, body: body, expectContinue: wait, progress: progress)
        task?.recordMetrics { metrics in
            metrics.responseStart = .now
            metrics.countOfResponseHeaderBytesReceived = Self.headBytes(received.head)
        }
        return received
    }

    /// The size of a response head as it came: status line and fields, each with CRLF.
    static func headBytes(_ head: HTTPResponseHead) -> Int64 {
        var count = 15 + head.status.reasonPhrase.utf8.count  // "HTTP/1.1 200 " + phrase + CRLF
        for field in head.headers { count += field.name.utf8.count + 2 + field.value.utf8.count + 2 }
        return Int64(count + 2)
    }

    /// A new connection is being opened for `task`: the phases of an earlier one no longer
    /// apply. An address needs no lookup (its lookup ends at once); a name's lookup end is
    /// recorded by the resolver; through a proxy the lookup is the proxy's, part of the connect.
    static func recordConnecting(plan: ConnectionPlan, task: SessionTask) {
        let literal = plan.settings.route == nil && TrustEvaluator.isIPLiteral(plan.target.host)
        task.recordMetrics { metrics in
            let now = ContinuousClock.now
            metrics.domainLookupEnd = literal ? now : nil
            metrics.secureConnectionEnd = nil
        }
    }

    /// Records which connection a request of `task` goes out on (metrics, and a debug event).
    static func recordConnection(_ connection: HTTPConnection, reused: Bool, plan: ConnectionPlan, task: SessionTask) {
        let remote = connection.remote, local = connection.local
        task.recordMetrics { metrics in
            metrics.reusedConnection = reused
            if reused {
                metrics.domainLookupEnd = nil
                metrics.secureConnectionEnd = nil
                metrics.connectEnd = .now
            } else {
                metrics.connectionsOpened += 1
            }
            metrics.remoteAddress = remote.ip
            metrics.remotePort = remote.port
            metrics.localAddress = local.ip
            metrics.localPort = local.port
        }
        guard task.session.configuration.emitsDebugEvents else { return }
        let host = plan.target.host, port = plan.target.origin.port
        task.emit(.debug(reused ? .reusingConnection(host: host, port: port)
                         : .connected(host: host, port: port, remoteAddress: remote.ip,
                                      proxy: plan.settings.route.map { "\($0.proxy)" })))
    }

    /// How long a request on a new connection waits for its head before our idle connections
    /// to the same server are closed (and again each time this much longer passes).
    static let starvationDelay = TimeAmount.milliseconds(200)

    /// Decides what the head means and acts on it, on its connection.
    private func answer(_ received: ReceivedHead, to request: Request, on connection: HTTPConnection, viaForwardProxy: Bool,
                        _ consumer: some ResponseConsumer) async throws(SessionError) -> (HopResult, reusable: Bool) {
        let final = try Self.final(received, to: request, original: task.originalRequest, on: connection)
        if received.trailingGarbage {
            task.emit(.warning("the server sent bytes after the end of the response; the connection is closed"))
        }
        absorb(final.response)
        var next = exchange.headReceived(final.response, viaForwardProxy: viaForwardProxy)
        if case .challenge(let response, let challenges, let isProxy) = next {
            let retry = await authenticate(response, challenges: challenges, isProxy: isProxy, request: request)
            next = exchange.challengeAnswered(retry: retry)
            if retry {
                resendReason = "answer the authentication challenge (\(response.statusCode))"
                let reusable = await Self.skipBody(of: final)
                return (.next(next), reusable)
            }
        } else {
            accepted()
        }
        if case .decideRedirect(let redirect, let proposed, let downgrade) = next {
            if downgrade {
                task.emit(.warning("redirected from https to http: \(URLDisplay.forDisplay(proposed.url)) is not encrypted"))
            }
            let decision = await task.decide { await $0.task(self.task, willPerformRedirection: redirect, newRequest: proposed) }
            next = exchange.redirectDecided(decision)
            if case .followRedirect(let request) = next {
                task.recordMetrics { metrics in
                    metrics.redirectCount += 1
                    metrics.redirectEnd = .now
                }
                task.emit(.redirected(redirect, to: request))
                resendReason = "follow the redirect (\(redirect.statusCode)) to \(URLDisplay.forDisplay(request.url))"
            }
        }
        switch next {
        case .deliver(let response):
            task.status.withLockedValue {
                $0.response = response
                $0.bytesReceived = 0
                $0.bytesExpected = response.expectedContentLength
            }
            let consumed = await consumer.consume(final)
            exchange.ended()
            switch consumed {
            case .done(let reusable):
                return (.ended(.finished), reusable && final.framing.keepAlive && !received.trailingGarbage)
            case .restart(let reason, let reusable):
                task.emit(.restarted(reason: reason))
                return (.ended(.restart(reason: reason)), reusable && final.framing.keepAlive)
            case .failed(let error, let reusable):
                return (.ended(.failed(error.at(request.url))), reusable && final.framing.keepAlive)
            }
        case .followRedirect, .endAttempt:
            // The body of a redirect or a busy answer is not wanted: skip it when small.
            let reusable = await Self.skipBody(of: final)
            return (.next(next), reusable)
        default:
            return (.next(next), false)
        }
    }

    /// Lets a body go: reads and drops a small one so the connection can be reused; true when
    /// it can.
    static func skipBody(of final: FinalResponse) async -> Bool {
        guard final.framing.keepAlive, !final.trailingGarbage else { return false }
        if final.completeBody != nil { return true }
        let limit: Int64 = 64 * 1024
        switch final.framing.body {
        case .none:
            return true
        case .length(let n) where n <= limit:
            return await final.body.drainBody(limit: limit)
        case .chunked:
            return await final.body.drainBody(limit: limit)
        default:
            return false
        }
    }

    /// The final response of a received head, on its connection.
    static func final(_ received: ReceivedHead, to request: Request, original: Request,
                      on connection: HTTPConnection) throws(SessionError) -> FinalResponse {
        let (response, framing) = try Self.response(received, to: request, original: original)
        return FinalResponse(response: response, framing: framing, completeBody: received.completeBody,
                             trailingGarbage: received.trailingGarbage, body: connection)
    }

    /// `HTTP/1.1` as text; the common versions without formatting numbers.
    static func versionText(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        case let (major, minor): "HTTP/\(major).\(minor)"
        }
    }

    /// The response value and framing of a received head.
    static func response(_ received: ReceivedHead, to request: Request, original: Request) throws(SessionError) -> (Response, ResponseFraming) {
        let head = received.head
        let headers = HeaderFields(fields: head.headers)
        let framing: ResponseFraming
        do {
            framing = try ResponseFraming(requestMethod: request.method, status: Int(head.status.code),
                                          versionMajor: head.version.major, versionMinor: head.version.minor, headers: headers)
        } catch {
            throw SessionError.badResponse.with("invalid Content-Length in response")
        }
        let response = Response(url: request.url, originalURL: original.url, statusCode: Int(head.status.code),
                                reasonPhrase: head.status.reasonPhrase,
                                httpVersion: Self.versionText(head.version),
                                headers: headers, expectedContentLength: framing.expectedLength)
        return (response, framing)
    }
}

/// Ranges of the resource an HTTP download is on, fetched at the hop its exchange reached
/// (HopRequest's origin rules, the same URL and method).
struct HTTPSegmentFetcher: SegmentFetcher {
    let task: SessionTask
    let exchange: Exchange
    let proxyAuthorization: String?

    func fetch<T>(adding fields: [(name: String, value: String)],
                  _ body: (FinalResponse) async -> (T, reusable: Bool)) async throws(SessionError) -> T {
        let context = ExchangeRunner.segmentContext(for: exchange.request(adding: fields), task: task)
        return try await ExchangeRunner.fetch(exchange.request(adding: fields, context: context), for: task,
                                              proxyAuthorization: proxyAuthorization, body)
    }
}

/// Fetches ranges of the resource a segmented download is on.
protocol SegmentFetcher: Sendable {
    /// Sends a request at the download's current hop with `fields` (a range and its validators)
    /// and hands the answer to `body`, which returns its result and whether the connection may
    /// be reused.
    func fetch<T>(adding fields: [(name: String, value: String)],
                  _ body: (FinalResponse) async -> (T, reusable: Bool)) async throws(SessionError) -> T
}
