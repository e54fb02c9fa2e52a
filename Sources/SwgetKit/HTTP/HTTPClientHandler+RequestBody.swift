import NIOCore
import NIOHTTP1

/// Sending a request body with flat memory: a chunk is read (data, a file, a form) or taken
/// from the driver (a stream) only while the channel is writable, so no more than about one
/// chunk (256 KiB) plus NIO's write buffer (up to the high watermark) is held whatever the
/// body's size. Framing is the encoder's: `Content-Length` passes the bytes through,
/// `Transfer-Encoding: chunked` wraps each write in a chunk.
///
/// The machine decides when the body may go (``HTTP1ConnectionStateMachine/isSendingBody``):
/// at once, after `100 Continue` or the continue timer, never after a final answer.
extension HTTPClientHandler {
    /// The body may go now: a reader is pumped, a stream's driver is told to start.
    func startBody() {
        continueTimer?.cancel()
        continueTimer = nil
        guard let outgoing, machine.isSendingBody else { return }
        if outgoing.reader != nil {
            pumpReader()
        } else if let waiter = outgoing.startWaiter {
            outgoing.startWaiter = nil
            waiter.succeed(true)
        }
    }

    /// The channel can take more: go on with the body.
    func bodyWritable() {
        guard let outgoing else { return }
        if outgoing.reader != nil {
            pumpReader()
        } else if let waiter = outgoing.writableWaiter {
            outgoing.writableWaiter = nil
            waiter.succeed(machine.isSendingBody)
        }
    }

    /// The body will not be sent (any more): a final answer came, the exchange failed, or the
    /// connection closed. A stream's driver hears `false`.
    func stopBody() {
        continueTimer?.cancel()
        continueTimer = nil
        guard let outgoing else { return }
        self.outgoing = nil
        outgoing.reader?.close()
        outgoing.reader = nil
        outgoing.startWaiter?.succeed(false)
        outgoing.writableWaiter?.succeed(false)
        outgoing.startWaiter = nil
        outgoing.writableWaiter = nil
    }

    /// Reads and writes chunks while the channel is writable; ends the body after the last.
    func pumpReader() {
        guard let context, let outgoing, !outgoing.pumping else { return }
        outgoing.pumping = true
        defer { outgoing.pumping = false }
        while machine.isSendingBody, context.channel.isWritable, self.outgoing === outgoing, var reader = outgoing.reader {
            let remaining = reader.contentLength - reader.bytesRead
            guard remaining > 0, !reader.isAtEnd else {
                endBody()
                return
            }
            let size = Int(min(Int64(reader.chunkSize), remaining))
            var buffer = context.channel.allocator.buffer(capacity: size)
            let count: Int
            do {
                count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { pointer in
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[..<size]))
                }
            } catch let error as BodyReadError {
                failBody(SessionError.fileIO.with(error.description).errno(error.errno))
                return
            } catch {
                failBody(SessionError.fileIO.with("cannot read the request body: \(error)"))
                return
            }
            outgoing.reader = reader
            guard count > 0 else {
                endBody()
                return
            }
            wroteBody(count)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
    }

    // MARK: a stream's driver (HTTPConnection.send)

    /// Completes with true once the stream body may be sent, false when it never will be.
    func streamBodyReady(_ promise: EventLoopPromise<Bool>) {
        guard let outgoing, outgoing.reader == nil, machine.requestBody.isUnfinished else {
            promise.succeed(false)
            return
        }
        if machine.isSendingBody {
            promise.succeed(true)
        } else {
            outgoing.startWaiter = promise
        }
    }

    /// Writes one chunk of a stream body; the promise completes with true when the channel can
    /// take the next one, false when the body stopped (or the chunk went past the announced
    /// length, which fails the exchange).
    func writeStreamChunk(_ buffer: ByteBuffer, promise: EventLoopPromise<Bool>) {
        guard let context, let outgoing, outgoing.reader == nil, machine.isSendingBody else {
            promise.succeed(false)
            return
        }
        if let length = outgoing.length, outgoing.sent + Int64(buffer.readableBytes) > length {
            failBody(SessionError.fileIO.with("the request body stream gave more than the \(length) bytes announced"))
            promise.succeed(false)
            return
        }
        if buffer.readableBytes > 0 {
            wroteBody(buffer.readableBytes)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        if !machine.isSendingBody || self.outgoing !== outgoing {
            promise.succeed(false)
        } else if context.channel.isWritable {
            promise.succeed(true)
        } else {
            outgoing.writableWaiter = promise
        }
    }

    /// The stream ended (`failure` nil) or failed: end the body, or fail the exchange.
    func endStreamBody(failure: SessionError?) {
        guard let outgoing, outgoing.reader == nil, machine.isSendingBody else { return }
        if let failure {
            failBody(failure)
        } else if let length = outgoing.length, outgoing.sent != length {
            failBody(SessionError.fileIO.with("the request body stream ended after \(outgoing.sent) of the \(length) bytes announced"))
        } else {
            endBody()
        }
    }

    // MARK: helpers


    /// Counts bytes handed to the channel; reports progress when due.
    private func wroteBody(_ count: Int) {
        guard let outgoing, let eventLoop = context?.eventLoop else { return }
        outgoing.sent += Int64(count)
        let now = eventLoop.now
        machine.bodyProgressed(now: now)
        if let progress = outgoing.progress, now - outgoing.lastReport >= progress.interval {
            report(outgoing, progress, now: now)
        }
    }

    private func report(_ outgoing: OutgoingSend, _ progress: BodyProgress, now: NIODeadline) {
        let delta = outgoing.sent - outgoing.reported
        guard delta > 0 else { return }
        outgoing.reported = outgoing.sent
        outgoing.lastReport = now
        progress.report(delta, outgoing.sent)
    }

    /// Every byte went: write the end (the last chunk when chunked), report the total.
    private func endBody() {
        guard let context, let outgoing else { return }
        self.outgoing = nil
        outgoing.reader?.close()
        outgoing.reader = nil
        if let progress = outgoing.progress { report(outgoing, progress, now: context.eventLoop.now) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        perform(machine.bodyEnded(now: context.eventLoop.now))
    }

    /// The body could not be read: the exchange fails and the connection closes.
    private func failBody(_ error: SessionError) {
        perform(machine.bodyFailed(error))
        stopBody()
    }
}
