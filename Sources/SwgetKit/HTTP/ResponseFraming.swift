/// How the body of an HTTP/1.x response is delimited (RFC 9112 §6.3), and whether the
/// connection can carry another request afterwards. A pure decision over the response head:
/// NIO's parser does the byte-level work, this value tells the session what to expect.
struct ResponseFraming: Equatable, Sendable {
    enum Body: Equatable, Sendable {
        /// No body at all: HEAD, 1xx, 204, 304.
        case none
        /// Exactly this many bytes.
        case length(Int64)
        /// Transfer-Encoding: chunked; length unknown up front.
        case chunked
        /// Read until the server closes the connection.
        case untilClose
    }

    let body: Body
    /// True when the connection may be reused once this response has been read completely.
    let keepAlive: Bool

    /// Errors are the protocol violations a client must not guess around (RFC 9112 §6.3 item 5).
    enum Violation: Error, Equatable { case invalidContentLength(String) }

    init(requestMethod: String, status: Int, versionMajor: Int, versionMinor: Int,
         headers: HeaderFields) throws(Violation) {
        let body = try Self.body(requestMethod: requestMethod, status: status, headers: headers)
        self.body = body
        self.keepAlive = Self.keepAlive(versionMajor: versionMajor, versionMinor: versionMinor,
                                        headers: headers, body: body)
            && !Self.announcesForbiddenBody(requestMethod: requestMethod, status: status, headers: headers)
    }

    /// A 204 that announces a body (a `Transfer-Encoding`, or a `Content-Length` other than 0,
    /// which RFC 9110 §8.6 and §15.3.5 forbid): the bytes it may send anyway are not part of
    /// this response and must not be read as the next one, so the connection is not reused,
    /// however those bytes arrive.
    private static func announcesForbiddenBody(requestMethod: String, status: Int, headers: HeaderFields) -> Bool {
        guard status == 204, !requestMethod.caseInsensitiveEquals("HEAD") else { return false }
        if headers.contains("Transfer-Encoding") { return true }
        return headers.values(for: "Content-Length").contains { $0.trimmingOWS != "0" }
    }

    /// A framing known without a head (a protocol handler's response).
    init(body: Body, keepAlive: Bool) {
        self.body = body
        self.keepAlive = keepAlive
    }

    /// The announced body length, when known before reading it.
    var expectedLength: Int64? {
        switch body {
        case .none: 0
        case .length(let n): n
        case .chunked, .untilClose: nil
        }
    }

    private static func body(requestMethod: String, status: Int, headers: HeaderFields) throws(Violation) -> Body {
        if requestMethod.caseInsensitiveEquals("HEAD") { return .none }
        if (100..<200).contains(status) || status == 204 || status == 304 { return .none }
        if headers.contains("Transfer-Encoding") {
            let transferCodings = headers.values(for: "Transfer-Encoding")
                .flatMap { $0.commaSeparated() }
                .map { $0.trimmingOWS.lowercased() }
            if let last = transferCodings.last {
                // chunked must be the final coding; otherwise the body runs until close.
                return last == "chunked" ? .chunked : .untilClose
            }
        }
        // The common case, one field of digits, read in place (no arrays made).
        if let value = headers.soleValue(for: "Content-Length"), let n = plainLength(value) { return .length(n) }
        let lengths = headers.values(for: "Content-Length")
            .flatMap { $0.commaSeparated(omittingEmpty: false) }
            .map { $0.trimmingOWS }
        if let first = lengths.first {
            // Repeated identical values are allowed ("42, 42"); anything else is an error.
            guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
                  first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int64(first) else {
                throw .invalidContentLength(lengths.joined(separator: ", "))
            }
            return .length(n)
        }
        return .untilClose
    }

    private static func keepAlive(versionMajor: Int, versionMinor: Int, headers: HeaderFields, body: Body) -> Bool {
        if body == .untilClose { return false }
        if headers.containsToken("close", in: "Connection") { return false }
        if versionMajor == 1 && versionMinor == 0 { return headers.containsToken("keep-alive", in: "Connection") }
        return versionMajor == 1
    }

    /// 1 to 18 ASCII digits between optional white space, as a number; nil for anything else.
    static func plainLength(_ value: String) -> Int64? {
        value.withBytes { bytes -> Int64? in
            var first = 0, end = bytes.count
            while first < end, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
            while end > first, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            guard end > first, end - first <= 18 else { return nil }
            var n: Int64 = 0
            while first < end {
                let byte = bytes[first]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int64(byte - UInt8(ascii: "0"))
                first += 1
            }
            return n
        }
    }
}
