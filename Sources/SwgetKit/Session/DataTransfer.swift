#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

/// A data task's transfer: the exchange, then the body of the final response handed on in
/// pieces (``TaskEvent/data(_:)``) or collected for ``Session/data(for:)``. Any status is a
/// response: an error page is delivered like any other body, as in NSURLSession.
final class DataTransfer: ResponseConsumer {
    let task: DataTask

    init(task: DataTask) {
        self.task = task
    }

    func run() async -> SessionError? {
        do {
            return await TaskRunner.run(task, loader: try task.session.protocols.loader(for: task), consumer: self)
        } catch {
            return error
        }
    }

    func additions() -> [(name: String, value: String)] { [] }

    func consume(_ final: FinalResponse) async -> Consumed {
        let response = final.response
        task.emit(.response(response))
        if await task.decide({ await $0.task(self.task, didReceive: response) }) == .cancel {
            return .failed(SessionError.cancelled, reusable: false)
        }
        var transform = BodyTransform()
        transform.decoding = BodyDecoding.judge(response, decodeContent: task.session.configuration.decodesContentEncoding,
                                                name: response.url.lastPathComponent).contentCodings
        do {
            try transform.bound(by: task.session.configuration.maximumBodyBytes, announced: response.expectedContentLength)
        } catch {
            return .failed(error, reusable: false)
        }
        if let parts = final.completeBody {
            var output = BodyOutput(transform)
            var body: [UInt8] = []
            do {
                for part in parts { try output.process(part) { body.append(contentsOf: $0) } }
                try output.finish { body.append(contentsOf: $0) }
            } catch {
                return .failed(error, reusable: false)
            }
            deliver(body)
            task.status.withLockedValue { $0.bytesReceived = output.received }
            return .done(reusable: true)
        }
        var failure: SessionError?
        var ended = false
        await final.body.streamBody(.data(highWatermark: 1 << 20, transform: transform)) { event in
            switch event {
            case .data(let bytes):
                task.status.withLockedValue { $0.bytesReceived += Int64(bytes.count) }
                deliver(bytes)
                if !task.collects { await task.delivery.drained() }  // backpressure: the delegate has it
                final.body.acknowledge(bytes.count)
            case .end:
                ended = true
            case .failed(let error):
                failure = error
            case .progress:
                break
            }
        }
        if let failure { return .failed(failure, reusable: false) }
        guard ended else { return .failed(task.cancellation ?? SessionError.connectionClosed.with("body ended unexpectedly"), reusable: false) }
        return .done(reusable: true)
    }

    private func deliver(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if task.collects {
            task.collected.withLockedValue { $0 += bytes }
        } else {
            task.emit(.data(Data(bytes)))
        }
    }
}
