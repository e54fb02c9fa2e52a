import NIOHTTP1

/// The bytes one response puts on the wire and what the connection does afterwards.
///
/// Pure: built from a `TestResponse` and facts about the request, with no channel in sight.
struct ResponseWire {
    enum Ending: Equatable {
        /// Keep the connection for the next request.
        case keepAlive
        /// Close once the bytes are written.
        case close
        /// Write nothing more, keep the connection open.
        case stall
    }

    /// Status line and headers (or the whole `raw` response).
    var head: [UInt8]
    /// The body as framed on the wire, already cut where the response asks.
    var body: [UInt8]
    var ending: Ending

    /// - Parameters:
    ///   - requestKeepAlive: whether the request allows the connection to persist.
    ///   - isHead: a HEAD request: headers as for GET, no body bytes.
    init(_ response: TestResponse, requestKeepAlive: Bool, isHead: Bool) {
        if let raw = response.raw {
            self.head = raw
            self.body = []
            self.ending = .close
            return
        }
        var headers = response.headers
        func has(_ name: String) -> Bool {
            headers.contains { $0.0.lowercased() == name }
        }

        let framed = FramedBody(response.body, framing: response.framing)
        switch response.framing {
        case .contentLength where !has("content-length"):
            headers.append(("Content-Length", String(response.body.count)))
        case .chunked where !has("transfer-encoding"):
            headers.append(("Transfer-Encoding", "chunked"))
        default:
            break
        }

        var closes = !response.keepAlive || !requestKeepAlive
        if case .closeDelimited = response.framing { closes = true }
        if closes && !has("connection") {
            headers.append(("Connection", "close"))
        }

        let reason = response.reason ?? HTTPResponseStatus(statusCode: response.status).reasonPhrase
        var text = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        self.head = Array(text.utf8)

        if isHead {
            self.body = []
            self.ending = closes ? .close : .keepAlive
        } else if let n = response.stallAfterBodyBytes {
            self.body = Array(framed.wire[..<framed.wireOffset(afterPayloadBytes: n)])
            self.ending = .stall
        } else if let n = response.closeAfterBodyBytes {
            self.body = Array(framed.wire[..<framed.wireOffset(afterPayloadBytes: n)])
            self.ending = .close
        } else {
            self.body = framed.wire
            self.ending = closes ? .close : .keepAlive
        }
    }
}

/// A body encoded for its framing, with a map from payload bytes to wire bytes.
struct FramedBody {
    private(set) var wire: [UInt8] = []
    /// For chunked bodies: where each chunk's payload starts, in payload and in wire bytes.
    private var chunks: [(payloadStart: Int, wireStart: Int, length: Int)] = []
    private let payloadCount: Int

    init(_ body: [UInt8], framing: TestResponse.Framing) {
        payloadCount = body.count
        switch framing {
        case .contentLength, .closeDelimited:
            wire = body
        case .noBody:
            wire = []
        case .chunked(let chunkSize):
            let size = max(1, chunkSize)
            var start = 0
            while start < body.count {
                let end = min(start + size, body.count)
                wire += Array((String(end - start, radix: 16) + "\r\n").utf8)
                chunks.append((start, wire.count, end - start))
                wire += body[start..<end]
                wire += [13, 10]
                start = end
            }
            wire += Array("0\r\n\r\n".utf8)
        }
    }

    /// How many wire bytes carry the first `n` payload bytes (all of them when `n` covers the body).
    func wireOffset(afterPayloadBytes n: Int) -> Int {
        if n >= payloadCount { return wire.count }
        if n <= 0 { return 0 }
        if chunks.isEmpty { return min(n, wire.count) }
        let chunk = chunks.last { $0.payloadStart < n }!
        return chunk.wireStart + (n - chunk.payloadStart)
    }
}
