#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// The driver of a task: one loop over hops (request → response head → redirect or body).
/// Everything here runs in the task's own Swift task; the body itself streams inside the
/// connection's pipeline (see ``BodySink``).
extension SessionTask {
    func perform() async throws(SessionError) {
        var request = try await prepare(originalRequest)
        mutable.withLockedValue { $0.currentRequest = request }
        var chain = RedirectChain(limit: session.configuration.maxRedirects, start: request.url)
        while true {
            try checkCancelled()
            let (connection, response, framing) = try await exchange(request)
            if RedirectPolicy.isRedirect(status: response.statusCode), let location = response.headers["Location"] {
                let proposed: Request
                do {
                    proposed = try RedirectPolicy.nextRequest(after: request, status: response.statusCode, location: location)
                } catch {
                    session.pool.release(connection, reusable: false)
                    throw error
                }
                let decision = await session.delegate?.task(self, willPerformRedirection: response, newRequest: proposed)
                    ?? .follow(proposed)
                if case .follow(let next) = decision {
                    do {
                        try chain.advance(to: next.url)
                    } catch {
                        session.pool.release(connection, reusable: false)
                        throw error
                    }
                    await release(connection, skipping: framing)
                    request = next
                    mutable.withLockedValue { $0.currentRequest = next }
                    continue
                }
            }
            if RetryPolicy.isTransient(status: response.statusCode) && canRetry {
                await release(connection, skipping: framing)
                throw SessionError.serverBusy(status: response.statusCode, retryAfter: response.headers["Retry-After"])
            }
            mutable.withLockedValue {
                $0.response = response
                $0.bytesReceived = 0
                $0.bytesExpected = response.expectedContentLength
            }
            if try await intercept(response, framing: framing, on: connection) { return }
            let disposition = await session.delegate?.task(self, didReceive: response) ?? .allow
            if disposition == .cancel {
                session.pool.release(connection, reusable: false)
                throw SessionError.cancelled
            }
            try await receiveBody(of: response, framing: framing, on: connection)
            return
        }
    }

    /// Sends `request` on a pooled connection and waits for the response head. A reused
    /// keep-alive connection that the server closed meanwhile is replaced once, transparently.
    func exchange(_ request: Request) async throws(SessionError) -> (HTTPConnection, Response, ResponseFraming) {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SessionError.unsupportedURL.with("unsupported scheme '\(url.scheme ?? "")' (swget speaks http and https)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SessionError.unsupportedURL.with("URL has no host")
        }
        guard Self.isValidHost(host) else {
            throw SessionError.unsupportedURL.with("invalid host name '\(host)'")
        }
        let origin = Origin(url)
        let head = requestHead(for: request, host: host, origin: origin)
        for attempt in 0..<2 {
            let (connection, reused) = try await session.pool.lease(origin) { () async throws(SessionError) in
                try await HTTPConnection.connect(host: host, origin: origin,
                                                 settings: try session.connectionSettings(for: origin, task: self),
                                                 on: session.eventLoopGroup.next())
            }
            mutable.withLockedValue { $0.connection = connection }
            if let reason = mutable.withLockedValue({ $0.cancellation }) {
                session.pool.release(connection, reusable: false)
                throw reason
            }
            let responseHead: HTTPResponseHead
            do {
                responseHead = try await connection.send(head, body: request.body)
            } catch {
                session.pool.release(connection, reusable: false)
                if reused && attempt == 0 && error == SessionError.connectionClosed { continue }
                throw error
            }
            let headers = HeaderFields(responseHead.headers.map { ($0.name, $0.value) })
            let framing: ResponseFraming
            do {
                framing = try ResponseFraming(requestMethod: request.method, status: Int(responseHead.status.code),
                                              versionMajor: responseHead.version.major,
                                              versionMinor: responseHead.version.minor, headers: headers)
            } catch {
                session.pool.release(connection, reusable: false)
                throw SessionError.badResponse.with("invalid Content-Length in response")
            }
            let response = Response(url: url, originalURL: originalRequest.url,
                                    statusCode: Int(responseHead.status.code),
                                    reasonPhrase: responseHead.status.reasonPhrase,
                                    httpVersion: "HTTP/\(responseHead.version.major).\(responseHead.version.minor)",
                                    headers: headers, expectedContentLength: framing.expectedLength)
            return (connection, response, framing)
        }
        throw SessionError.connectionClosed.with("server closed the connection without a response")
    }

    /// After a followed redirect: keep the connection when its body is small enough to skip.
    func release(_ connection: HTTPConnection, skipping framing: ResponseFraming) async {
        let limit: Int64 = 64 * 1024
        switch framing.body {
        case .none:
            session.pool.release(connection, reusable: framing.keepAlive)
        case .length(let n) where n <= limit:
            let clean = await connection.drainBody(limit: limit)
            session.pool.release(connection, reusable: clean && framing.keepAlive)
        case .chunked:
            let clean = await connection.drainBody(limit: limit)
            session.pool.release(connection, reusable: clean && framing.keepAlive)
        default:
            session.pool.release(connection, reusable: false)
        }
    }

    /// Letters, digits and `-._` (host names, IPv4), or an IPv6 literal; nothing that could
    /// smuggle spaces, control characters or `@` tricks into a connection or Host header.
    static func isValidHost(_ host: String) -> Bool {
        if host.contains(":") { return host.utf8.allSatisfy { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || isHexDigit($0) } }
        return host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
    }

    private func requestHead(for request: Request, host: String, origin: Origin) -> HTTPRequestHead {
        var target = request.url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        var headers = HTTPHeaders()
        let hostName = host.contains(":") ? "[\(host)]" : host
        let defaultPort = origin.scheme == "https" ? 443 : 80
        headers.add(name: "Host", value: origin.port == defaultPort ? hostName : "\(hostName):\(origin.port)")
        let managed = ["Host", "Content-Length", "Connection", "Transfer-Encoding"]
        for field in session.configuration.defaultHeaders where !request.headers.contains(field.name) {
            if !managed.contains(where: { $0.caseInsensitiveEquals(field.name) }) {
                headers.add(name: field.name, value: field.value)
            }
        }
        for field in request.headers where !managed.contains(where: { $0.caseInsensitiveEquals(field.name) }) {
            headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.uppercased()),
                               uri: target, headers: headers)
    }
}
