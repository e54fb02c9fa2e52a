#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

/// Runs a task's attempts through a ``ProtocolHandler`` of the registry: builds each request
/// (``HopRequest``: the original's fields and the resume's range), starts the handler, gives
/// its response to the task and lets the task pull the body through a ``HandlerBodySource``.
final class HandlerLoader: Loader {
    let task: SessionTask
    let handler: any ProtocolHandler
    private var target: HopTarget
    private var chain: RedirectChain

    init(task: SessionTask, handler: any ProtocolHandler, startingAt url: URL? = nil) {
        self.task = task
        self.handler = handler
        var target = HopTarget(task.originalRequest)
        if let url { target.url = url }
        self.target = target
        chain = RedirectChain(limit: task.session.configuration.maxRedirects, start: target.url)
    }

    /// Handlers other than HTTP's stream from their own sources; no segments.
    var segmentFetcher: SegmentFetcher? { nil }

    func load(additions: [(name: String, value: String)], canRetry: Bool, consumer: some ResponseConsumer) async -> LoadOutcome {
        while true {
            let request = handler.canonicalRequest(for: HopRequest.make(original: task.originalRequest, target: target,
                                                                        additions: additions))
            task.status.withLockedValue { $0.currentRequest = request }
            let bridge = HandlerBridge()
            let client = ProtocolClient(bridge: bridge, task: task)
            let handler = self.handler
            let loading = Task { await handler.startLoading(request, client: client) }
            let outcome = await withTaskCancellationHandler {
                await attempt(request, bridge: bridge, consumer: consumer)
            } onCancel: {
                bridge.cancel()
            }
            bridge.cancel()
            await loading.value  // the handler has returned: nothing more is written anywhere
            switch outcome {
            case .redirected(let next):
                target = next
                continue
            case .outcome(let outcome):
                return outcome
            }
        }
    }

    private enum Attempt {
        case redirected(HopTarget)
        case outcome(LoadOutcome)
    }

    private func attempt(_ request: Request, bridge: HandlerBridge, consumer: some ResponseConsumer) async -> Attempt {
        switch await bridge.firstEvent() {
        case .ended(let error):
            return .outcome(.failed((error ?? SessionError.badResponse.with("the protocol handler finished without a response")).at(request.url)))
        case .redirect(let next, let response):
            guard handler.canHandle(next) else {
                return .outcome(.failed(SessionError.badRedirect.with("refusing to follow a redirect to another protocol").at(request.url)))
            }
            let decision = await task.decide { await $0.task(self.task, willPerformRedirection: response, newRequest: next) }
            guard case .follow(let chosen) = decision ?? .follow(next) else {
                return .outcome(.failed(SessionError.badRedirect.with("redirect refused").at(request.url)))
            }
            do {
                try chain.advance(to: chosen.url)
            } catch {
                return .outcome(.failed(error.at(request.url)))
            }
            task.emit(.redirected(response, to: chosen))
            return .redirected(RedirectPolicy.target(of: chosen))
        case .response(let response, let body):
            task.status.withLockedValue {
                $0.response = response
                $0.bytesReceived = 0
                $0.bytesExpected = response.expectedContentLength
            }
            let framing = ResponseFraming(body: response.expectedContentLength.map { .length($0) } ?? .untilClose, keepAlive: false)
            let final = FinalResponse(response: response, framing: framing, completeBody: nil, trailingGarbage: false,
                                      body: body ?? HandlerBodySource(bridge: bridge))
            switch await consumer.consume(final) {
            case .done: return .outcome(.finished)
            case .restart(let reason, _):
                task.emit(.restarted(reason: reason))
                return .outcome(.restart(reason: reason))
            case .failed(let error, _): return .outcome(.failed(error.at(request.url)))
            }
        }
    }
}

/// A handler's body as the task's sinks take it: pieces pulled from the bridge and written
/// from the task (decoded and bounded like any body), progress at most every 100 ms.
struct HandlerBodySource: BodySource {
    let bridge: HandlerBridge

    func streamBody(_ spec: SinkSpec, _ handle: (BodyEvent) async -> Void) async {
        switch spec {
        case .file(let fd, let interval, let transform, _):
            await streamToFile(fd, interval: interval, transform: transform, handle)
        case .data(_, let transform):
            var output = BodyOutput(transform)
            while let piece = await bridge.nextPiece() {
                var decoded: [UInt8] = []
                do {
                    try output.process(ByteBuffer(bytes: piece.bytes)) { decoded.append(contentsOf: $0) }
                } catch {
                    piece.taken?.resume()
                    return await fail(error, handle)
                }
                piece.taken?.resume()
                if !decoded.isEmpty { await handle(.data(decoded)) }
            }
            if let error = bridge.endError { return await handle(.failed(error)) }
            var tail: [UInt8] = []
            do {
                try output.finish { tail.append(contentsOf: $0) }
            } catch {
                return await handle(.failed(error))
            }
            if !tail.isEmpty { await handle(.data(tail)) }
            await handle(.end(BodyEnd(bytes: output.received, decoded: output.delivered)))
        case .discard(let limit):
            var total: Int64 = 0
            while let piece = await bridge.nextPiece() {
                total += Int64(piece.bytes.count)
                piece.taken?.resume()
                if total > limit { return await fail(SessionError.badResponse.with("body too large to skip"), handle) }
            }
            await handle(bridge.endError.map { .failed($0) } ?? .end(BodyEnd(bytes: total, decoded: total)))
        }
    }

    private func streamToFile(_ fd: Int32, interval: TimeAmount, transform: BodyTransform, _ handle: (BodyEvent) async -> Void) async {
        var output = BodyOutput(transform)
        let clock = ContinuousClock()
        var lastReport = clock.now
        let every = Duration.nanoseconds(interval.nanoseconds)
        while let piece = await bridge.nextPiece() {
            var landed = 0
            do {
                try output.process(ByteBuffer(bytes: piece.bytes)) { bytes throws(SessionError) in
                    try FileWriter.writeAll(bytes, to: fd, landed: &landed)
                }
            } catch {
                output.creditLanded(landed)
                piece.taken?.resume()
                await handle(.progress(output.received))
                return await fail(error, handle)
            }
            piece.taken?.resume()
            if clock.now - lastReport >= every {
                lastReport = clock.now
                await handle(.progress(output.received))
            }
        }
        await handle(.progress(output.received))
        if let error = bridge.endError { return await handle(.failed(error)) }
        do {
            var landed = 0
            try output.finish { bytes throws(SessionError) in try FileWriter.writeAll(bytes, to: fd, landed: &landed) }
        } catch {
            return await handle(.failed(error))
        }
        await handle(.end(BodyEnd(bytes: output.received, decoded: output.delivered)))
    }

    private func fail(_ error: SessionError, _ handle: (BodyEvent) async -> Void) async {
        bridge.cancel()
        await handle(.failed(error))
    }

    func acknowledge(_ count: Int) {}

    func drainBody(limit: Int64) async -> Bool {
        bridge.cancel()
        return false
    }

    func abort() {
        bridge.cancel()
    }
}
