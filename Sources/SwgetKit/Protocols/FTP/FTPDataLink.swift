import NIOConcurrencyHelpers
import NIOCore

/// One data connection as the driver and the task see it: its number (events of older ones are
/// dropped), its channel and its handler.
final class FTPDataLink: Sendable {
    /// The connection's number in its control connection (news of older ones is stale).
    let id: Int
    /// The data channel.
    let channel: Channel
    private let handler: NIOLoopBound<FTPDataHandler>

    /// The link of `handler`, the last handler of `channel`.
    init(id: Int, channel: Channel, handler: NIOLoopBound<FTPDataHandler>) {
        self.id = id
        self.channel = channel
        self.handler = handler
    }

    /// Streams the bytes into a sink built from `spec` on the channel's event loop; its events go
    /// to `events`.
    func attach(_ spec: SinkSpec, events: AsyncStream<BodyEvent>.Continuation) {
        let handler = self.handler
        channel.eventLoop.execute {
            handler.value.attach(.sink(spec.makeSink(eventLoop: handler.eventLoop, events: events), events))
        }
    }

    /// Keeps the bytes (a listing), at most `limit`.
    func collect(limit: Int) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.attach(.collect(limit: limit)) }
    }

    /// The listing collected so far (after the transfer was confirmed).
    func collected() async -> [UInt8] {
        let handler = self.handler
        return (try? await channel.eventLoop.submit { handler.value.collected }.get()) ?? []
    }

    /// The server confirmed the transfer: the body ends well.
    func finish() {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.finish() }
    }

    /// The transfer failed: the body ends with `error` at once.
    func fail(_ error: SessionError) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.fail(error) }
    }

    /// The transfer failed: the bytes still on their way are kept, then the body ends with `error`.
    func failAfterEnd(_ error: SessionError) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.failAfterEnd(error) }
    }

    /// A data consumer took `count` bytes (backpressure).
    func acknowledge(_ count: Int) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.acknowledge(count) }
    }

    /// Stops the body at once; returns when nothing more will be written.
    func abandon() async {
        let handler = self.handler
        try? await channel.eventLoop.submit { handler.value.abandon() }.get()
    }

    /// Closes the connection (the handler reports whatever that ends).
    func close() {
        channel.close(promise: nil)
    }
}

/// Where a data handler registers itself when its channel is set up (passive connect or active
/// accept), for the driver to pick up.
final class FTPDataSlot: Sendable {
    private let box = NIOLockedValueBox<FTPDataLink?>(nil)

    /// The link, once a handler filled the slot.
    var link: FTPDataLink? { box.withLockedValue { $0 } }

    /// Keeps the first link; false (and the caller closes its channel) when one is there.
    func fill(_ link: FTPDataLink) -> Bool {
        box.withLockedValue { current in
            guard current == nil else { return false }
            current = link
            return true
        }
    }

    /// Empties the slot.
    func take() -> FTPDataLink? {
        box.withLockedValue { current in
            defer { current = nil }
            return current
        }
    }
}

/// A task's view of a file's bytes on an FTP data connection: streamed into the task's sink
/// inside the channel pipeline (no hop per piece), ended by the driver once the server confirmed
/// the transfer.
struct FTPDataBody: BodySource {
    /// The data connection carrying the bytes.
    let link: FTPDataLink

    func streamBody(_ spec: SinkSpec, _ handle: (BodyEvent) async -> Void) async {
        let (stream, continuation) = AsyncStream.makeStream(of: BodyEvent.self)
        link.attach(spec, events: continuation)
        var ended = false
        for await event in stream {
            if case .end = event { ended = true }
            if case .failed = event { ended = true }
            await handle(event)
        }
        // Cancelled mid-body: stop the sink on its event loop so no write follows this return.
        if !ended { await link.abandon() }
    }

    func acknowledge(_ count: Int) { link.acknowledge(count) }

    func drainBody(limit: Int64) async -> Bool {
        await link.abandon()
        return false
    }

    func abort() { link.close() }
}
