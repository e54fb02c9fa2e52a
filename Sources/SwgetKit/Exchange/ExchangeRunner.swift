#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// The final response of an exchange, on its connection.
struct FinalResponse: Sendable {
    let response: Response
    let framing: ResponseFraming
    /// The head as received, with the whole body when it came in the same read.
    let received: ReceivedHead
    /// The connection it arrived on (leased for the duration of ``ResponseConsumer/consume(_:on:)``).
    let connection: HTTPConnection
}

/// What a task does with the final response of its exchange: a data task collects or hands
/// on the body, a download task judges a resume and writes a file.
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
    /// The transfer failed (the exchange decides whether to retry).
    case failed(SessionError, reusable: Bool)
}

/// Performs an ``Exchange``'s actions for one task: leases connections, sends each hop's
/// request, asks the delegate about redirects, waits before retries, and hands the final
/// response to the task's ``ResponseConsumer``. Used from the task's own Swift task only.
final class ExchangeRunner {
    let task: SessionTask
    private(set) var exchange: Exchange
    private var session: Session { task.session }

    init(task: SessionTask, startingAt url: URL? = nil) {
        self.task = task
        let configuration = task.session.configuration
        exchange = Exchange(original: task.originalRequest, maxRedirects: configuration.maxRedirects,
                            retryPolicy: configuration.retryPolicy, startingAt: url)
    }

    /// Runs the exchange to its end; returns the task's error, nil on success.
    func run(_ consumer: some ResponseConsumer) async -> SessionError? {
        var action = exchange.start(additions: consumer.additions())
        while true {
            if let reason = task.cancellation { return reason }
            switch action {
            case .send(let request), .followRedirect(let request):
                task.status.withLockedValue { $0.currentRequest = request }
                guard let next = await hop(request, consumer) else { return nil }
                action = next
            case .retry(let delay, let error):
                let next = exchange.attempt + 1
                task.emit(.willRetry(after: delay, error: error.at(exchange.target.url), attempt: next))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return task.cancellation ?? SessionError.cancelled
                }
                task.status.withLockedValue { $0.attempt = next }
                action = exchange.retryNow(additions: consumer.additions())
            case .fail(let error):
                return error.at(exchange.target.url)
            case .decideRedirect, .deliver:
                return SessionError.badResponse.with("internal error: \(action) outside a hop").at(exchange.target.url)
            }
        }
    }

    /// A request for fields like a segment's range, at the current hop (same URL, method and
    /// origin rules).
    func request(adding fields: [(name: String, value: String)]) -> Request {
        exchange.request(adding: fields)
    }

    /// Sends `request` (a segment's range, built by ``request(adding:)``) on a leased
    /// connection to its origin and hands the answer to `body`, which returns its result and
    /// whether the connection may be reused. No redirect is followed: the caller judges the
    /// answer.
    static func fetch<T>(_ request: Request, for task: SessionTask,
                         _ body: (FinalResponse) async -> (T, reusable: Bool)) async throws(SessionError) -> T {
        let target = try HTTPTarget(request.url)
        let key = PoolKey(origin: target.origin)
        let session = task.session
        let settings = try session.connectionSettings(for: target.origin, task: task)
        return try await session.pool.withConnection(key, connect: { () async throws(SessionError) in
            try await HTTPConnection.connect(host: target.host, origin: target.origin, settings: settings,
                                             on: session.eventLoopGroup.next())
        }) { connection, reused async throws(SessionError) -> (T, reusable: Bool) in
            try await task.using(connection) { () async throws(SessionError) -> (T, reusable: Bool) in
                let received = try await send(request, to: target, on: connection, key: key, reused: reused, session: session)
                let (response, framing) = try Self.response(received, to: request, original: task.originalRequest)
                let (result, reusable) = await body(FinalResponse(response: response, framing: framing,
                                                                  received: received, connection: connection))
                return (result, reusable && framing.keepAlive && !received.trailingGarbage)
            }
        }
    }

    // MARK: one hop

    /// Sends `request` on a leased connection and handles its answer; returns what comes next
    /// (nil: the task is done). A reused keep-alive connection that the server closed meanwhile
    /// is replaced once, transparently.
    private func hop(_ request: Request, _ consumer: some ResponseConsumer) async -> Exchange.Action? {
        for attempt in 0..<2 {
            do {
                switch try await onConnection(request, consumer, replacingStale: attempt == 0) {
                case .stale: continue
                case .next(let action): return action
                }
            } catch {
                if let reason = task.cancellation { return .fail(reason) }
                return exchange.failed(error, random: Double.random(in: 0..<1))
            }
        }
        return exchange.failed(SessionError.connectionClosed.with("server closed the connection without a response"))
    }

    private enum HopOutcome {
        /// A reused connection was found closed before any answer: try a new one.
        case stale
        /// What comes next (nil: done).
        case next(Exchange.Action?)
    }

    private func onConnection(_ request: Request, _ consumer: some ResponseConsumer,
                              replacingStale: Bool) async throws(SessionError) -> HopOutcome {
        let target = try HTTPTarget(request.url)
        let key = PoolKey(origin: target.origin)
        let settings = try session.connectionSettings(for: target.origin, task: task)
        let session = self.session
        return try await session.pool.withConnection(key, connect: { () async throws(SessionError) in
            try await HTTPConnection.connect(host: target.host, origin: target.origin, settings: settings,
                                             on: session.eventLoopGroup.next())
        }) { connection, reused async throws(SessionError) -> (HopOutcome, reusable: Bool) in
            try await task.using(connection) { () async throws(SessionError) -> (HopOutcome, reusable: Bool) in
                let received: ReceivedHead
                do throws(SessionError) {
                    received = try await Self.send(request, to: target, on: connection, key: key, reused: reused, session: session)
                } catch {
                    if reused && replacingStale && error == SessionError.connectionClosed { return (.stale, false) }
                    throw error
                }
                let (next, reusable) = try await answer(received, to: request, on: connection, consumer)
                return (.next(next), reusable)
            }
        }
    }

    /// Sends the request and waits for the head. On a new connection, a head that is slow to
    /// come lets our own idle connections to the same server go: a server that serves one
    /// connection at a time answers only once they are closed.
    private static func send(_ request: Request, to target: HTTPTarget, on connection: HTTPConnection, key: PoolKey,
                             reused: Bool, session: Session) async throws(SessionError) -> ReceivedHead {
        let head = target.requestHead(for: request, defaultHeaders: session.configuration.defaultHeaders)
        var starvation: Scheduled<Void>?
        if !reused {
            let pool = session.pool
            starvation = connection.channel.eventLoop.scheduleTask(in: Self.starvationDelay) { pool.closeIdleConnections(to: key) }
        }
        defer { starvation?.cancel() }
        return try await connection.send(head, body: request.body)
    }

    /// How long a request on a new connection waits for its head before our idle connections
    /// to the same server are closed.
    static let starvationDelay = TimeAmount.milliseconds(200)

    /// Decides what the head means and acts on it, on its connection.
    private func answer(_ received: ReceivedHead, to request: Request, on connection: HTTPConnection,
                        _ consumer: some ResponseConsumer) async throws(SessionError) -> (Exchange.Action?, reusable: Bool) {
        let response: Response
        let framing: ResponseFraming
        (response, framing) = try Self.response(received, to: request, original: task.originalRequest)
        if received.trailingGarbage {
            task.emit(.warning("the server sent bytes after the end of the response; the connection is closed"))
        }
        var next = exchange.headReceived(response, random: Double.random(in: 0..<1))
        if case .decideRedirect(let redirect, let proposed, let downgrade) = next {
            if downgrade {
                task.emit(.warning("redirected from https to http: \(URLDisplay.forDisplay(proposed.url)) is not encrypted"))
            }
            let decision = await task.decide { await $0.task(self.task, willPerformRedirection: redirect, newRequest: proposed) }
            next = exchange.redirectDecided(decision)
            if case .followRedirect(let request) = next {
                task.emit(.redirected(redirect, to: request))
            }
        }
        switch next {
        case .deliver(let final):
            task.status.withLockedValue {
                $0.response = final
                $0.bytesReceived = 0
                $0.bytesExpected = final.expectedContentLength
            }
            let ending = FinalResponse(response: final, framing: framing, received: received, connection: connection)
            switch await consumer.consume(ending) {
            case .done(let reusable):
                exchange.finished()
                return (nil, reusable && framing.keepAlive && !received.trailingGarbage)
            case .restart(let reason, let reusable):
                task.emit(.restarted(reason: reason))
                return (exchange.restart(reason, additions: consumer.additions()), reusable && framing.keepAlive)
            case .failed(let error, let reusable):
                if let reason = task.cancellation { return (.fail(reason), false) }
                return (exchange.failed(error, random: Double.random(in: 0..<1)), reusable && framing.keepAlive)
            }
        case .followRedirect, .retry:
            // The body of a redirect or a busy answer is not wanted: skip it when small.
            let reusable = await Self.skipBody(of: received, framing: framing, on: connection)
            return (next, reusable)
        default:
            return (next, false)
        }
    }

    /// Lets a body go: reads and drops a small one so the connection can be reused; true when
    /// it can.
    static func skipBody(of received: ReceivedHead, framing: ResponseFraming, on connection: HTTPConnection) async -> Bool {
        guard framing.keepAlive, !received.trailingGarbage else { return false }
        if received.completeBody != nil { return true }
        let limit: Int64 = 64 * 1024
        switch framing.body {
        case .none:
            return true
        case .length(let n) where n <= limit:
            return await connection.drainBody(limit: limit)
        case .chunked:
            return await connection.drainBody(limit: limit)
        default:
            return false
        }
    }

    /// The response value and framing of a received head.
    static func response(_ received: ReceivedHead, to request: Request, original: Request) throws(SessionError) -> (Response, ResponseFraming) {
        let head = received.head
        let headers = HeaderFields(head.headers.map { ($0.name, $0.value) })
        let framing: ResponseFraming
        do {
            framing = try ResponseFraming(requestMethod: request.method, status: Int(head.status.code),
                                          versionMajor: head.version.major, versionMinor: head.version.minor, headers: headers)
        } catch {
            throw SessionError.badResponse.with("invalid Content-Length in response")
        }
        let response = Response(url: request.url, originalURL: original.url, statusCode: Int(head.status.code),
                                reasonPhrase: head.status.reasonPhrase,
                                httpVersion: "HTTP/\(head.version.major).\(head.version.minor)",
                                headers: headers, expectedContentLength: framing.expectedLength)
        return (response, framing)
    }
}
