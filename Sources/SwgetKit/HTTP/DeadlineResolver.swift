import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A resolver with a deadline (``SessionConfiguration/dnsTimeout``, wget's `--dns-timeout`):
/// each query of `base` that has not answered within `timeout` fails with ``TimedOut``.
/// getaddrinfo cannot be stopped; its late answer is simply not used.
final class DeadlineResolver: Resolver, Sendable {
    private let base: any Resolver & Sendable
    private let timeout: TimeAmount
    private let loop: EventLoop

    init(base: any Resolver & Sendable, timeout: TimeAmount, loop: EventLoop) {
        self.base = base
        self.timeout = timeout
        self.loop = loop
    }

    /// A lookup that did not end in time.
    struct TimedOut: Error, CustomStringConvertible {
        let host: String
        let timeout: TimeAmount
        var description: String { "looking up '\(host)' took longer than \(Self.seconds(timeout))" }

        static func seconds(_ amount: TimeAmount) -> String {
            let milliseconds = amount.nanoseconds / 1_000_000
            return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
        }
    }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        bounded(base.initiateAQuery(host: host, port: port), host: host)
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        bounded(base.initiateAAAAQuery(host: host, port: port), host: host)
    }

    func cancelQueries() { base.cancelQueries() }

    /// `future`, or a ``TimedOut`` failure when it has not completed `timeout` from now.
    private func bounded(_ future: EventLoopFuture<[SocketAddress]>, host: String) -> EventLoopFuture<[SocketAddress]> {
        let promise = loop.makePromise(of: [SocketAddress].self)
        let settled = NIOLockedValueBox(false)
        let settle: @Sendable (Result<[SocketAddress], Error>) -> Void = { result in
            guard settled.withLockedValue({ done in defer { done = true }; return !done }) else { return }
            promise.completeWith(result)
        }
        let timeout = self.timeout
        let timer = loop.scheduleTask(in: timeout) { settle(.failure(TimedOut(host: host, timeout: timeout))) }
        future.whenComplete { result in
            timer.cancel()
            settle(result)
        }
        return promise.futureResult
    }
}
