import NIOCore
import NIOHTTP1

/// One connection of the test server: assembles requests, records them, asks the test's handler
/// what to do and performs it, one request at a time (pipelined requests wait their turn).
///
/// Everything runs on the channel's event loop; delays use `scheduleTask`, never a sleep.
final class TestServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var request: TestRequest
        var keepAlive: Bool
    }

    private let connectionID: Int
    private let core: TestServer.Core
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var queue: [Pending] = []
    private var busy = false
    /// Closing, closed or stalled: no further response is written.
    private var done = false
    private var timer: Scheduled<Void>?

    init(connectionID: Int, core: TestServer.Core) {
        self.connectionID = connectionID
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
            // Answer "Expect: 100-continue" at once (when no response is in progress), so clients
            // do not wait for their expect timeout.
            if !busy, !done, queue.isEmpty,
                h.headers["expect"].contains(where: { $0.lowercased() == "100-continue" })
            {
                context.writeAndFlush(
                    wrapOutboundOut(context.channel.allocator.buffer(string: "HTTP/1.1 100 Continue\r\n\r\n")),
                    promise: nil
                )
            }
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let h = head else { return }
            head = nil
            let request = TestRequest(
                method: h.method.rawValue,
                uri: h.uri,
                version: "HTTP/\(h.version.major).\(h.version.minor)",
                headers: h.headers.map { ($0.name, $0.value) },
                body: body,
                connectionID: connectionID
            )
            body = []
            core.record(request)
            queue.append(Pending(request: request, keepAlive: h.isKeepAlive))
            respondToNext(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done = true
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // Malformed requests and TLS failures end the connection; tests see it as a client error.
        done = true
        context.close(promise: nil)
    }

    private func respondToNext(context: ChannelHandlerContext) {
        guard !busy, !done, !queue.isEmpty else { return }
        busy = true
        let pending = queue.removeFirst()
        let response = core.handler(pending.request)
        let wire = ResponseWire(
            response,
            requestKeepAlive: pending.keepAlive,
            isHead: pending.request.method == "HEAD"
        )
        if let trickle = response.trickle, response.raw == nil, !wire.body.isEmpty {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: wire.head)), promise: nil)
            trickleBody(
                context: context,
                wire: wire,
                from: 0,
                step: trickle.bytesPerWrite,
                interval: TimeAmount(trickle.interval),
                gate: response.gate
            )
        } else {
            let written = context.writeAndFlush(
                wrapOutboundOut(context.channel.allocator.buffer(bytes: wire.head + wire.body))
            )
            finish(context: context, ending: wire.ending, after: written)
        }
    }

    private func trickleBody(
        context: ChannelHandlerContext, wire: ResponseWire, from start: Int, step: Int, interval: TimeAmount, gate: BodyGate?
    ) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.timer = nil
            guard !self.done else { return }
            let end = min(start + step, wire.body.count, max(start, gate?.limit ?? .max))
            guard end > start else {
                // The gate is shut here: look again after another interval.
                self.trickleBody(context: context, wire: wire, from: start, step: step, interval: interval, gate: gate)
                return
            }
            let written = context.writeAndFlush(
                self.wrapOutboundOut(context.channel.allocator.buffer(bytes: wire.body[start..<end]))
            )
            if end < wire.body.count {
                self.trickleBody(context: context, wire: wire, from: end, step: step, interval: interval, gate: gate)
            } else {
                self.finish(context: context, ending: wire.ending, after: written)
            }
        }
    }

    private func finish(context: ChannelHandlerContext, ending: ResponseWire.Ending, after written: EventLoopFuture<Void>) {
        switch ending {
        case .keepAlive:
            busy = false
            respondToNext(context: context)
        case .close:
            done = true
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .stall:
            done = true
        }
    }
}
