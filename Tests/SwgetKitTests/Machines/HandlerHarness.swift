import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
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

    /// `forwardInformational`: the decoder hands 1xx heads on (as the real pipeline does, for
    /// `100 Continue`) instead of dropping them.
    init(idleTimeout: TimeAmount = .seconds(10), decoder: Bool = false, rateLimiter: RateLimiter? = nil,
         maxHeaderBytes: Int? = nil, forwardInformational: Bool = false) throws {
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
                leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: forwardInformational ? .forward : .drop,
                limitConfiguration: limits)))
        }
        try pipeline.addHandler(handler)
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 80), promise: nil)
    }

    /// Runs `body` on a fresh harness, then closes the channel and ends the event stream.
    static func scenario<R>(idleTimeout: TimeAmount = .seconds(10), decoder: Bool = false, rateLimiter: RateLimiter? = nil,
                            maxHeaderBytes: Int? = nil, forwardInformational: Bool = false,
                            _ body: (HandlerHarness) throws -> R) throws -> R {
        let harness = try HandlerHarness(idleTimeout: idleTimeout, decoder: decoder, rateLimiter: rateLimiter,
                                         maxHeaderBytes: maxHeaderBytes, forwardInformational: forwardInformational)
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
