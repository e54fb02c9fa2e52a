import Synchronization

/// What the test server does for one request: a value built with static helpers and modifiers.
///
/// The server formats the response itself, so every field may lie: a `Content-Length` header
/// already present in `headers` is sent as is (even when wrong), `raw` bytes are sent verbatim,
/// and the close/stall/trickle knobs cut or slow the body on purpose.
public struct TestResponse: Sendable {
    /// How the body is delimited on the wire.
    public enum Framing: Sendable {
        /// `Content-Length: body.count` is added unless `headers` already has a Content-Length.
        case contentLength
        /// `Transfer-Encoding: chunked` (added unless present), chunks of `chunkSize` payload bytes.
        case chunked(chunkSize: Int)
        /// No length at all: the body ends when the server closes the connection.
        case closeDelimited
        /// No body and no framing header (1xx, 204, 304).
        case noBody
    }

    public var status: Int
    /// The reason phrase; nil means the usual one for `status`.
    public var reason: String?
    /// Header lines sent in this order, after nothing but the status line.
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var framing: Framing = .contentLength
    /// Send the body `bytesPerWrite` bytes at a time, `interval` apart (the head goes at once).
    public var trickle: (bytesPerWrite: Int, interval: Duration)?
    /// With `trickle`: the body never runs ahead of what this gate allows, whatever the time.
    public var gate: BodyGate?
    /// Close the connection abruptly after this many body payload bytes.
    public var closeAfterBodyBytes: Int?
    /// Send the head and this many body payload bytes, then nothing more; the connection stays
    /// open until the server stops.
    public var stallAfterBodyBytes: Int?
    /// Send exactly these bytes, then close; everything else is ignored.
    public var raw: [UInt8]?
    /// When false, "Connection: close" is added and the server closes after the response.
    public var keepAlive: Bool = true

    public init(status: Int, reason: String? = nil, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    // MARK: Making responses

    /// 200 with this body.
    public static func ok(_ body: [UInt8], headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: 200, headers: headers, body: body)
    }

    /// A UTF-8 text body with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ s: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(s.utf8))
    }

    /// A redirect (301, 302, 303, 307, 308...) to `location`, with an empty body.
    public static func redirect(_ status: Int, to location: String) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)])
    }

    /// Any status. 1xx, 204 and 304 with no body get `.noBody` framing.
    public static func status(_ code: Int, body: [UInt8] = [], headers: [(String, String)] = []) -> TestResponse {
        var response = TestResponse(status: code, headers: headers, body: body)
        if body.isEmpty && (code < 200 || code == 204 || code == 304) {
            response.framing = .noBody
        }
        return response
    }

    /// A 200 with an empty body whose header block (status line to blank line) is `bytes` long,
    /// padded with `X-Filler-N` headers.
    public static func oversizedHeaders(bytes: Int) -> TestResponse {
        // "HTTP/1.1 200 OK\r\n" + "Content-Length: 0\r\n" + filler + "\r\n"
        let fixed = 17 + 19 + 2
        var remaining = max(0, bytes - fixed)
        var headers: [(String, String)] = []
        var index = 0
        while remaining > 0 {
            let name = "X-Filler-\(index)"
            let overhead = name.utf8.count + 4  // ": " and CRLF
            // Lines of about 100 bytes; never leave a remainder too small to hold a line.
            var line = min(remaining, 100)
            if remaining - line < overhead + 1 && remaining - line > 0 { line = remaining }
            let value = String(repeating: "a", count: max(1, line - overhead))
            headers.append((name, value))
            remaining -= overhead + value.utf8.count
            index += 1
        }
        return TestResponse(status: 200, headers: headers)
    }

    /// These bytes verbatim, then close (bad chunk framing, HTTP/0.9, garbage...).
    public static func rawBytes(_ bytes: [UInt8]) -> TestResponse {
        var response = TestResponse(status: 0)
        response.raw = bytes
        return response
    }

    /// `s` as UTF-8 verbatim, then close. Write "\r\n" line ends yourself.
    public static func rawText(_ s: String) -> TestResponse {
        rawBytes(Array(s.utf8))
    }

    // MARK: Modifiers

    /// Chunked transfer coding with `size` payload bytes per chunk.
    public func chunked(_ size: Int = 1000) -> Self {
        var copy = self
        copy.framing = .chunked(chunkSize: max(1, size))
        return copy
    }

    /// No Content-Length: the body ends when the server closes the connection.
    public func closeDelimited() -> Self {
        var copy = self
        copy.framing = .closeDelimited
        return copy
    }

    /// No body and no framing header.
    public func noBody() -> Self {
        var copy = self
        copy.framing = .noBody
        return copy
    }

    /// Send the body `bytesPerWrite` bytes at a time, `interval` apart.
    public func trickled(bytesPerWrite: Int, every interval: Duration) -> Self {
        var copy = self
        copy.trickle = (max(1, bytesPerWrite), interval)
        return copy
    }

    /// Trickle the body, but never past what `gate` allows: the test decides when each part of
    /// the body may go, so a phase of a test can never be skipped by a machine that is slow to look.
    public func trickled(bytesPerWrite: Int, every interval: Duration, gate: BodyGate) -> Self {
        var copy = trickled(bytesPerWrite: bytesPerWrite, every: interval)
        copy.gate = gate
        return copy
    }

    /// Close abruptly after `n` body payload bytes.
    public func closing(afterBodyBytes n: Int) -> Self {
        var copy = self
        copy.closeAfterBodyBytes = n
        return copy
    }

    /// Send the head and `n` body payload bytes, then go silent with the connection open.
    public func stalling(afterBodyBytes n: Int) -> Self {
        var copy = self
        copy.stallAfterBodyBytes = n
        return copy
    }

    /// Adds a header line (after the existing ones; duplicates are allowed).
    public func withHeader(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// Removes every header named `name` (case-insensitive).
    public func withoutHeader(_ name: String) -> Self {
        var copy = self
        let wanted = name.lowercased()
        copy.headers.removeAll { $0.0.lowercased() == wanted }
        return copy
    }

    /// A custom reason phrase.
    public func withReason(_ reason: String) -> Self {
        var copy = self
        copy.reason = reason
        return copy
    }

    /// `keepAlive == false`: "Connection: close", and the server closes after the response.
    public func closingConnection() -> Self {
        var copy = self
        copy.keepAlive = false
        return copy
    }
}

/// How many body bytes (as on the wire) a gated, trickled response may have sent so far; the
/// test opens it further step by step. Starts closed.
public final class BodyGate: Sendable {
    private let allowed = Mutex(0)

    public init() {}

    /// Let the body run up to `bytes` (never closes what was opened).
    public func open(to bytes: Int) {
        allowed.withLock { $0 = max($0, bytes) }
    }

    /// Let the rest of the body go.
    public func openFully() {
        open(to: .max)
    }

    var limit: Int { allowed.withLock { $0 } }
}
