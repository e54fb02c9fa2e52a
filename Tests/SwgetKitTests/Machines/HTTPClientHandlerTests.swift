import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import SwgetKit

/// Counts the `read()` calls that reach the channel: the handler runs with autoRead off and
/// asks for every read itself.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    private(set) var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// The result of a future on the embedded loop, recorded when it completes.
final class Outcome<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<Result<Value, any Error>?>(nil)

    init(_ future: EventLoopFuture<Value>) {
        future.whenComplete { [box] result in box.withLockedValue { $0 = result } }
    }

    var result: Result<Value, any Error>? { box.withLockedValue { $0 } }
    var value: Value? { try? result?.get() }
    var error: SessionError? {
        guard case .failure(let error)? = result else { return nil }
        return error as? SessionError
    }
}

/// One connection's pipeline on an `EmbeddedChannel`: a read counter, optionally the real
/// `HTTPResponseDecoder`, and the handler. Lives and dies inside a synchronous scenario (the
/// embedded loop may only be used from the thread that made it).
final class HandlerHarness {
    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    let handler: HTTPClientHandler
    let counter = ReadCounter()
    let stream: AsyncStream<BodyEvent>
    let continuation: AsyncStream<BodyEvent>.Continuation

    init(idleTimeout: TimeAmount = .seconds(10), decoder: Bool = false, rateLimiter: RateLimiter? = nil,
         maxHeaderBytes: Int? = nil) throws {
        channel = EmbeddedChannel(loop: loop)
        handler = HTTPClientHandler(idleTimeout: idleTimeout, trustFailure: TrustFailureBox(), rateLimiter: rateLimiter, now: loop.now)
        (stream, continuation) = AsyncStream.makeStream(of: BodyEvent.self)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(counter)
        if decoder {
            var limits = NIOHTTPDecoderLimitConfiguration()
            if let maxHeaderBytes {
                limits.maxHeaderListSize = maxHeaderBytes
                limits.maxHeaderFieldSize = maxHeaderBytes
            }
            try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(
                leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop, limitConfiguration: limits)))
        }
        try pipeline.addHandler(handler)
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 80), promise: nil)
    }

    /// Runs `body` on a fresh harness, then closes the channel and ends the event stream.
    static func scenario<R>(idleTimeout: TimeAmount = .seconds(10), decoder: Bool = false, rateLimiter: RateLimiter? = nil,
                            maxHeaderBytes: Int? = nil, _ body: (HandlerHarness) throws -> R) throws -> R {
        let harness = try HandlerHarness(idleTimeout: idleTimeout, decoder: decoder, rateLimiter: rateLimiter,
                                         maxHeaderBytes: maxHeaderBytes)
        defer {
            _ = try? harness.channel.finish(acceptAlreadyClosed: true)
            harness.continuation.finish()
        }
        return try body(harness)
    }

    var reads: Int { counter.reads }

    /// Sends a request; its head promise is recorded.
    func send(method: HTTPMethod = .GET) -> Outcome<ReceivedHead> {
        let promise = loop.makePromise(of: ReceivedHead.self)
        let outcome = Outcome(promise.futureResult)
        handler.send(HTTPRequestHead(version: .http1_1, method: method, uri: "/"), body: nil, promise: promise)
        return outcome
    }

    func receiveBody(_ spec: SinkSpec = .data(highWatermark: 1 << 20)) {
        handler.receiveBody(spec, events: continuation)
    }

    /// Parts fed as one read (channelRead for each, then one channelReadComplete).
    func read(_ parts: HTTPClientResponsePart...) {
        for part in parts { channel.pipeline.syncOperations.fireChannelRead(NIOAny(part)) }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    /// Raw bytes through the decoder, in one read or one read per byte.
    func feed(_ text: String, byteByByte: Bool = false) throws {
        let bytes = Array(text.utf8)
        if byteByByte {
            for byte in bytes { try channel.writeInbound(ByteBuffer(bytes: [byte])) }
        } else {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        }
    }

    /// The server closes the connection (the decoder, if any, sees the end of the stream).
    func serverCloses() {
        channel.close(promise: nil)
    }

    static let ok = HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok))
    static func body(_ text: String) -> HTTPClientResponsePart { .body(ByteBuffer(string: text)) }
}

/// The events of a body, as short labels.
func bodyEvents(_ stream: AsyncStream<BodyEvent>) async -> [String] {
    var labels: [String] = []
    for await event in stream {
        switch event {
        case .progress(let n): labels.append("progress(\(n))")
        case .data(let bytes): labels.append("data(\(String(decoding: bytes, as: UTF8.self)))")
        case .end(let end): labels.append("end(\(end.bytes),\(end.decoded)\(end.stoppedEarly ? ",early" : ""))")
        case .failed(let error): labels.append("failed(\(error.code))")
        }
    }
    return labels
}

@Suite("HTTP/1 client handler (EmbeddedChannel)")
struct HTTPClientHandlerTests {
    typealias H = HandlerHarness

    // MARK: - parts fed straight to the handler

    struct Steps: Sendable {
        var reads: [Int] = []
        var head: ReceivedHead?
        var error: SessionError?
        var active = true
        var reusable = false
        var stream: AsyncStream<BodyEvent>?
    }

    @Test("a head alone: parked without reads until the driver attaches, then streamed")
    func headThenBody() async throws {
        let steps = try H.scenario { h -> Steps in
            var steps = Steps()
            let head = h.send()
            steps.reads.append(h.reads)               // the send reads
            guard case .head(let sent)? = try h.channel.readOutbound(as: HTTPClientRequestPart.self), sent.method == .GET,
                  case .end? = try h.channel.readOutbound(as: HTTPClientRequestPart.self) else {
                Issue.record("request not written")
                return steps
            }
            h.read(H.ok)
            steps.head = head.value
            steps.reads.append(h.reads)               // parked: no read while the driver decides
            h.receiveBody()
            steps.reads.append(h.reads)               // attached: read
            h.read(H.body("hel"))
            steps.reads.append(h.reads)               // streaming: read on
            h.read(H.body("lo"), .end(nil))
            steps.reads.append(h.reads)               // idle: read to notice a close
            steps.reusable = h.handler.isReusable
            steps.stream = h.stream
            return steps
        }
        #expect(steps.head?.head.status == .ok)
        #expect(steps.head?.completeBody == nil)
        #expect(steps.head?.trailingGarbage == false)
        #expect(steps.reads.count == 5)
        #expect(steps.reads.prefix(4) == [1, 1, 2, 3])
        #expect((steps.reads.last ?? 0) > 3)
        #expect(steps.reusable)
        if let stream = steps.stream { #expect(await bodyEvents(stream) == ["data(hel)", "data(lo)", "end(5,5)"]) }
    }

    @Test("a whole response in one read comes back with the head, the connection idle")
    func wholeResponseInOneRead() throws {
        let steps = try H.scenario { h -> Steps in
            var steps = Steps()
            let head = h.send()
            h.read(H.ok, H.body("hel"), H.body("lo"), .end(nil))
            steps.head = head.value
            steps.reads.append(h.reads)
            steps.reusable = h.handler.isReusable
            steps.active = h.channel.isActive
            return steps
        }
        #expect(steps.head?.completeBody?.map { String(buffer: $0) } == ["hel", "lo"])
        #expect(steps.head?.trailingGarbage == false)
        #expect(steps.reusable && steps.active)
        #expect((steps.reads.first ?? 0) > 1, "the idle connection reads on to notice the server closing it")
    }

    @Test("garbage after a complete body in the same read: the body is kept, the connection is not")
    func garbageInSameRead() throws {
        let steps = try H.scenario { h -> Steps in
            var steps = Steps()
            let head = h.send()
            h.read(H.ok, H.body("hello"), .end(nil), H.body("junk"))
            steps.head = head.value
            steps.reusable = h.handler.isReusable
            steps.active = h.channel.isActive
            return steps
        }
        #expect(steps.head?.completeBody?.map { String(buffer: $0) } == ["hello"])
        #expect(steps.head?.trailingGarbage == true)
        #expect(!steps.reusable && !steps.active)
    }

    @Test("garbage after a complete body that waited for the driver: delivered, connection closed")
    func garbageWhileParked() async throws {
        let steps = try H.scenario { h -> Steps in
            var steps = Steps()
            let head = h.send()
            h.read(H.ok)
            h.read(H.body("hello"), .end(nil))
            h.read(H.body("junk"))
            steps.head = head.value
            h.receiveBody()
            steps.reusable = h.handler.isReusable
            steps.active = h.channel.isActive
            steps.stream = h.stream
            return steps
        }
        #expect(steps.head?.completeBody == nil)
        #expect(!steps.reusable && !steps.active)
        if let stream = steps.stream { #expect(await bodyEvents(stream) == ["data(hello)", "end(5,5)"]) }
    }

    // MARK: - failures

    @Test("the server closes before the head: the head fails")
    func closeBeforeHead() throws {
        let error = try H.scenario { h -> SessionError? in
            let head = h.send()
            h.serverCloses()
            return head.error
        }
        #expect(error == .connectionClosed)
    }

    @Test("the server closes mid-body: the sink hears the failure after the bytes")
    func closeMidBody() async throws {
        let stream = try H.scenario { h -> AsyncStream<BodyEvent> in
            _ = h.send()
            h.read(H.ok)
            h.receiveBody()
            h.read(H.body("abc"))
            h.serverCloses()
            return h.stream
        }
        #expect(await bodyEvents(stream) == ["data(abc)", "failed(connectionClosed)"])
    }

    @Test("the server closes while the head is parked: what came is delivered, then the failure")
    func closeWhileParked() async throws {
        let stream = try H.scenario { h -> AsyncStream<BodyEvent> in
            _ = h.send()
            h.read(H.ok)
            h.read(H.body("abc"))
            h.serverCloses()
            h.receiveBody()
            return h.stream
        }
        #expect(await bodyEvents(stream) == ["data(abc)", "failed(connectionClosed)"])
    }

    @Test("a second request while one is out is refused; after the first, it is sent")
    func oneAtATime() throws {
        let (busy, second) = try H.scenario { h -> (SessionError?, ReceivedHead?) in
            _ = h.send()
            let busy = h.send().error
            h.read(H.ok, .end(nil))
            let second = h.send()
            h.read(H.ok, H.body("x"), .end(nil))
            return (busy, second.value)
        }
        #expect(busy == .connectionClosed)
        #expect(second?.completeBody?.map { String(buffer: $0) } == ["x"])
    }

    @Test("a request on a closed connection fails at once")
    func sendOnClosed() throws {
        let error = try H.scenario { h -> SessionError? in
            h.serverCloses()
            return h.send().error
        }
        #expect(error == .connectionClosed)
    }

    // MARK: - sinks

    @Test("a data sink over its high watermark stops reads until acknowledged")
    func backpressure() async throws {
        let (reads, stream) = try H.scenario { h -> ([Int], AsyncStream<BodyEvent>) in
            _ = h.send()
            h.read(H.ok)
            h.receiveBody(.data(highWatermark: 4))
            var reads = [h.reads]
            h.read(H.body("hello"))                   // 5 > 4 outstanding: paused
            reads.append(h.reads)
            h.read(H.body("!"))                       // a read already asked for still lands
            reads.append(h.reads)
            h.handler.acknowledge(2)                  // 4 outstanding: not over the mark
            reads.append(h.reads)
            h.read(.end(nil))
            return (reads, h.stream)
        }
        #expect(reads.count == 4)
        #expect(reads[1] == reads[0] && reads[2] == reads[0])
        #expect(reads[3] == reads[0] + 1)
        #expect(await bodyEvents(stream) == ["data(hello)", "data(!)", "end(6,6)"])
    }

    @Test("a discard sink drops a small body and fails a large one", arguments: [(Int64(10), true), (Int64(4), false)])
    func discard(limit: Int64, clean: Bool) async throws {
        let (active, stream) = try H.scenario { h -> (Bool, AsyncStream<BodyEvent>) in
            _ = h.send()
            h.read(H.ok)
            h.receiveBody(.discard(limit: limit))
            h.read(H.body("hel"))
            h.read(H.body("lo"), .end(nil))
            return (h.channel.isActive, h.stream)
        }
        #expect(active == clean)
        #expect(await bodyEvents(stream) == (clean ? ["end(5,5)"] : ["failed(badResponse)"]))
    }

    // MARK: - the idle read timeout on the embedded clock

    @Test("no byte for the timeout fails the head; a moment less does not")
    func idleTimeoutAwaitingHead() throws {
        let (before, after, active) = try H.scenario(idleTimeout: .seconds(1)) { h -> (Bool, SessionError?, Bool) in
            let head = h.send()
            h.loop.advanceTime(by: .milliseconds(999))
            let before = head.result == nil
            h.loop.advanceTime(by: .milliseconds(1))
            return (before, head.error, h.channel.isActive)
        }
        #expect(before)
        #expect(after == .readTimedOut)
        #expect(!active)
    }

    @Test("bytes reset the silence; a stalled body times out")
    func idleTimeoutStreaming() async throws {
        let (failedEarly, stream) = try H.scenario(idleTimeout: .seconds(1)) { h -> (Bool, AsyncStream<BodyEvent>) in
            _ = h.send()
            h.loop.advanceTime(by: .milliseconds(750))
            h.read(H.ok)
            h.receiveBody()
            for _ in 0..<8 {
                h.loop.advanceTime(by: .milliseconds(500))
                h.read(H.body("x"))
            }
            let failedEarly = !h.channel.isActive
            h.loop.advanceTime(by: .seconds(2))
            return (failedEarly, h.stream)
        }
        #expect(!failedEarly)
        #expect(await bodyEvents(stream) == Array(repeating: "data(x)", count: 8) + ["failed(readTimedOut)"])
    }

    @Test("a paused consumer is not the server's silence; after it catches up, silence counts")
    func idleTimeoutPaused() async throws {
        let (activeWhilePaused, activeAfter, stream) = try H.scenario(idleTimeout: .seconds(1)) { h -> (Bool, Bool, AsyncStream<BodyEvent>) in
            _ = h.send()
            h.read(H.ok)
            h.receiveBody(.data(highWatermark: 1))
            h.read(H.body("ab"))
            h.loop.advanceTime(by: .seconds(30))
            let activeWhilePaused = h.channel.isActive
            h.handler.acknowledge(2)
            h.loop.advanceTime(by: .milliseconds(999))
            let activeAfter = h.channel.isActive
            h.loop.advanceTime(by: .seconds(1))
            return (activeWhilePaused, activeAfter, h.stream)
        }
        #expect(activeWhilePaused && activeAfter)
        #expect(await bodyEvents(stream) == ["data(ab)", "failed(readTimedOut)"])
    }

    @Test("the driver deciding about a parked head is not silence")
    func idleTimeoutParked() async throws {
        let (active, stream) = try H.scenario(idleTimeout: .seconds(1)) { h -> (Bool, AsyncStream<BodyEvent>) in
            _ = h.send()
            h.read(H.ok)
            h.loop.advanceTime(by: .seconds(30))
            let active = h.channel.isActive
            h.receiveBody()
            h.read(H.body("x"), .end(nil))
            return (active, h.stream)
        }
        #expect(active)
        #expect(await bodyEvents(stream) == ["data(x)", "end(1,1)"])
    }

    @Test("a rate-limit pause holds reads back without counting as silence")
    func idleTimeoutRateLimited() async throws {
        // 1 byte/s from an empty bucket: 100 bytes pay for about 100 s of waiting.
        let (reads, active, stream) = try H.scenario(idleTimeout: .seconds(1),
                                                     rateLimiter: RateLimiter(bytesPerSecond: 1)) { h -> ([Int], Bool, AsyncStream<BodyEvent>) in
            _ = h.send()
            h.read(H.ok)
            h.receiveBody()
            var reads = [h.reads]
            h.read(H.body(String(repeating: "a", count: 100)))
            reads.append(h.reads)                     // the next read waits for the bucket
            h.loop.advanceTime(by: .seconds(50))
            reads.append(h.reads)
            let active = h.channel.isActive
            h.loop.advanceTime(by: .seconds(60))      // the delayed read ran, then 1 s of silence
            reads.append(h.reads)
            return (reads, active, h.stream)
        }
        #expect(reads.count == 4 && reads[1] == reads[0] && reads[2] == reads[0] && reads[3] == reads[0] + 1)
        #expect(active)
        #expect(await bodyEvents(stream) == ["data(\(String(repeating: "a", count: 100)))", "failed(readTimedOut)"])
    }

    @Test("the idle check stops with the body: an idle pooled connection never times out")
    func noTimeoutWhenIdle() throws {
        let active = try H.scenario(idleTimeout: .seconds(1)) { h -> Bool in
            let head = h.send()
            h.read(H.ok, H.body("x"), .end(nil))
            _ = head.value
            h.loop.advanceTime(by: .seconds(60))
            return h.channel.isActive && h.handler.isReusable
        }
        #expect(active)
    }

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
