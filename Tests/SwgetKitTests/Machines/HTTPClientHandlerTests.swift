import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import SwgetKit

/// The handler that performs the HTTP/1 machine's actions, on an `EmbeddedChannel` with the
/// embedded loop's manual clock: no sockets, no real seconds.
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

    @Test("a connection that failed while idle and left the pipeline gives its own reason to a later request")
    func sendAfterFailureWhileIdle() throws {
        let error = try H.scenario { h -> SessionError? in
            h.channel.pipeline.fireErrorCaught(SessionError.tlsHandshake.with("TLS handshake failed: no TLS version in common"))
            _ = try h.channel.pipeline.syncOperations.removeHandler(h.handler).wait()
            return h.send().error
        }
        #expect(error == .tlsHandshake)
        #expect(error?.message == "TLS handshake failed: no TLS version in common")
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
}
