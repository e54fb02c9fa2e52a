import NIOCore
import NIOHTTP1
import Testing
@testable import SwgetKit

/// Raw responses through the real `HTTPResponseDecoder` and the handler, fed in one read and
/// one byte per read: framing, bodies cut by a close, garbage after the end, bad bytes.
extension HTTPClientHandlerTests {
    // MARK: - raw bytes through the real decoder, whole and byte by byte

    struct Wire: CustomTestStringConvertible, Sendable {
        let name: String
        var method: HTTPMethod = .GET
        let bytes: String
        /// Close the connection after the bytes (a body delimited by the close).
        var closeAfter = false
        /// The body, as the sink or the complete body saw it; nil when the head failed.
        let body: String?
        var garbage = false
        var reusable: Bool
        var headError: SessionError?
        var bodyError: SessionError?
        var testDescription: String { name }
    }

    static let wires: [Wire] = [
        Wire(name: "Content-Length", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", body: "hello", reusable: true),
        Wire(name: "chunked", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n",
             body: "hello", reusable: true),
        Wire(name: "empty body", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", body: "", reusable: true),
        Wire(name: "100 Continue is skipped", bytes: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
             body: "ok", reusable: true),
        Wire(name: "HEAD with a length has no body", method: .HEAD, bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
             body: "", reusable: true),
        Wire(name: "close-delimited", bytes: "HTTP/1.1 200 OK\r\n\r\nhello", closeAfter: true, body: "hello", reusable: false),
        Wire(name: "garbage after Content-Length", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloJUNK",
             body: "hello", garbage: true, reusable: false),
        Wire(name: "a 204 with a body", bytes: "HTTP/1.1 204 No Content\r\n\r\nJUNK", body: "", garbage: true, reusable: false),
        Wire(name: "a second response nobody asked for",
             bytes: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny",
             body: "x", garbage: true, reusable: false),
        Wire(name: "cut Content-Length body", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", closeAfter: true,
             body: "hello", reusable: false, bodyError: .connectionClosed),
        Wire(name: "cut chunked body", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", closeAfter: true,
             body: "hel", reusable: false, bodyError: .connectionClosed),
        Wire(name: "bad chunk size", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n",
             body: "", reusable: false, bodyError: .badResponse),
        Wire(name: "not HTTP", bytes: "SSH-2.0-OpenSSH_9.6\r\n\r\n", body: nil, reusable: false, headError: .badResponse),
        Wire(name: "closed before the head", bytes: "HTTP/1.1 200 OK\r\nContent-Le", closeAfter: true, body: nil,
             reusable: false, headError: .connectionClosed),
    ]

    struct WireResult: Sendable {
        var head: ReceivedHead?
        var headError: SessionError?
        var reusable = false
        var stream: AsyncStream<BodyEvent>?
    }

    static func run(_ wire: Wire, byteByByte: Bool) throws -> WireResult {
        try H.scenario(decoder: true) { h -> WireResult in
            var result = WireResult()
            let head = h.send(method: wire.method)
            try h.feed(wire.bytes, byteByByte: byteByByte)
            if wire.closeAfter { h.serverCloses() }
            result.head = head.value
            result.headError = head.error
            if let received = head.value, received.completeBody == nil {
                h.receiveBody()
                result.stream = h.stream
            }
            result.reusable = h.handler.isReusable && h.channel.isActive
            return result
        }
    }

    @Test(arguments: wires, [false, true])
    func wire(_ wire: Wire, byteByByte: Bool) async throws {
        let result = try Self.run(wire, byteByByte: byteByByte)
        #expect(result.headError == wire.headError)
        #expect(result.reusable == wire.reusable)
        guard let expected = wire.body else {
            #expect(result.head == nil)
            return
        }
        guard let head = result.head else {
            Issue.record("no head")
            return
        }
        if let parts = head.completeBody {
            #expect(parts.map { String(buffer: $0) }.joined() == expected)
            #expect(wire.bodyError == nil)
        } else if let stream = result.stream {
            let events = await bodyEvents(stream)
            let data = events.filter { $0.hasPrefix("data(") }.map { $0.dropFirst(5).dropLast() }.joined()
            #expect(data == expected)
            if let error = wire.bodyError {
                #expect(events.last == "failed(\(error.code))")
            } else {
                #expect(events.last == "end(\(expected.utf8.count),\(expected.utf8.count))")
            }
        }
        // Garbage is reported with the head when it came in the same read as the whole body.
        if !byteByByte { #expect(head.trailingGarbage == wire.garbage) }
    }

    @Test("a head over the size bound fails as too large", arguments: [false, true])
    func headersTooLarge(byteByByte: Bool) throws {
        let error = try H.scenario(decoder: true, maxHeaderBytes: 64) { h -> SessionError? in
            let head = h.send()
            try h.feed("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "v", count: 200))\r\n\r\n", byteByByte: byteByByte)
            return head.error
        }
        #expect(error == .headersTooLarge)
    }
}
