import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import SwgetKit

/// The handler sending a request body on an `EmbeddedChannel` with the real response decoder:
/// `Expect: 100-continue` released by `100 Continue` (outside the decoder, whose writes it would
/// otherwise hold in memory) or by the timer, withheld by a final answer, and paced by the
/// channel's writability.
@Suite("HTTP/1 handler: request bodies on EmbeddedChannel")
struct HTTPClientHandlerRequestBodyTests {
    static let length = 1 << 20

    /// Sends a PUT with a 1 MiB body read in 256 KiB chunks.
    static func send(_ harness: HandlerHarness, expectContinue: TimeAmount?) -> Outcome<ReceivedHead> {
        let promise = harness.loop.makePromise(of: ReceivedHead.self)
        let outcome = Outcome(promise.futureResult)
        let body = OutgoingBody.reader(BodyReader(bytes: [UInt8](repeating: 7, count: length), chunkSize: 256 * 1024))
        harness.handler.send(HTTPRequestHead(version: .http1_1, method: .PUT, uri: "/up"), body: body,
                             expectContinue: expectContinue, promise: promise)
        return outcome
    }

    /// What the handler wrote since the last call: "head", body byte counts, "end".
    static func written(_ harness: HandlerHarness) -> [String] {
        var parts: [String] = []
        while true {
            let next: HTTPClientRequestPart?
            do {
                next = try harness.channel.readOutbound(as: HTTPClientRequestPart.self)
            } catch {
                return parts + ["error: \(error)"]
            }
            guard let part = next else { break }
            switch part {
            case .head: parts.append("head")
            case .body(.byteBuffer(let buffer)): parts.append("\(buffer.readableBytes)")
            case .body: parts.append("file")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    static let chunks = ["262144", "262144", "262144", "262144", "end"]

    @Test("100 Continue releases the body on the next loop tick, never inside the decoder; the answer follows")
    func continueReleases() throws {
        try HandlerHarness.scenario(decoder: true, forwardInformational: true) { h in
            let outcome = Self.send(h, expectContinue: .seconds(1))
            #expect(Self.written(h) == ["head"])
            try h.feed("HTTP/1.1 100 Continue\r\n\r\n")
            #expect(Self.written(h).isEmpty)
            h.loop.run()
            #expect(Self.written(h) == Self.chunks)
            try h.feed("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
            let received = try #require(outcome.value)
            #expect(received.head.status == .created)
            #expect(!received.requestBodyWithheld)
            #expect(h.handler.machine.isIdle)
        }
    }

    @Test("a server that says nothing gets the body when the wait ends")
    func timerReleases() throws {
        try HandlerHarness.scenario(decoder: true, forwardInformational: true) { h in
            _ = Self.send(h, expectContinue: .seconds(1))
            #expect(Self.written(h) == ["head"])
            h.loop.advanceTime(by: .milliseconds(999))
            #expect(Self.written(h).isEmpty)
            h.loop.advanceTime(by: .milliseconds(1))
            #expect(Self.written(h) == Self.chunks)
        }
    }

    @Test("a final answer before 100 Continue withholds the body; the connection is not reused")
    func refusedBeforeBody() throws {
        try HandlerHarness.scenario(decoder: true, forwardInformational: true) { h in
            let outcome = Self.send(h, expectContinue: .seconds(1))
            _ = Self.written(h)
            try h.feed("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nWWW-Authenticate: Basic realm=\"x\"\r\n\r\n")
            let received = try #require(outcome.value)
            #expect(received.head.status == .unauthorized)
            #expect(received.requestBodyWithheld)
            h.loop.advanceTime(by: .seconds(2))
            #expect(Self.written(h).isEmpty)
            #expect(!h.handler.machine.isIdle)
        }
    }

    @Test("without Expect the body follows the head, a chunk at a time while the channel is writable")
    func writability() throws {
        try HandlerHarness.scenario(decoder: true, forwardInformational: true) { h in
            h.channel.isWritable = false
            _ = Self.send(h, expectContinue: nil)
            #expect(Self.written(h) == ["head"])
            h.channel.isWritable = true
            h.channel.pipeline.fireChannelWritabilityChanged()
            #expect(Self.written(h) == Self.chunks)
        }
    }
}
