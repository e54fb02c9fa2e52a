import NIOConcurrencyHelpers
import NIOCore

/// What reaches the driver of one FTP control connection, from the channel handlers (replies,
/// TLS, data-connection news), from its timers and from the task (cancellation).
enum FTPNews: Sendable {
    /// An event for the control machine. `dataLink` names the data connection a data event is
    /// about (stale ones are dropped); nil for control events.
    case event(FTPControlMachine.Event, dataLink: Int?)
    /// The control connection cannot be used any more (a TLS failure, an unparseable reply):
    /// the error says why.
    case broken(SessionError)
    /// The task no longer wants the load.
    case cancelled
    /// Nothing arrived within the wait's timeout.
    case timedOut
}

/// A queue of ``FTPNews`` with one waiting reader: posts may come from any thread (event-loop
/// handlers, timers, cancellation), the driver takes them in order with ``next(timeout:on:)``.
/// Memory is bounded by the protocol: the machine has at most one command outstanding, so
/// the queue holds a handful of items.
final class FTPMailbox: Sendable {
    private struct State {
        var queue: [FTPNews] = []
        var waiter: CheckedContinuation<FTPNews, Never>?
        /// Tells the current wait's timer from an older one.
        var generation = 0
        var timer: Scheduled<Void>?
    }

    private let state = NIOLockedValueBox(State())

    /// Queues `news`, or hands it to the waiting reader.
    func post(_ news: FTPNews) {
        let (waiter, timer) = state.withLockedValue { state -> (CheckedContinuation<FTPNews, Never>?, Scheduled<Void>?) in
            guard let waiter = state.waiter else {
                state.queue.append(news)
                return (nil, nil)
            }
            state.waiter = nil
            state.generation += 1
            defer { state.timer = nil }
            return (waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume(returning: news)
    }

    /// True when something arrived that nobody took yet (for an idle pooled connection: the
    /// server said something, so the connection is not clean). News of data connections older
    /// than `link` (a finished job's connection closing) is dropped first: it says nothing about
    /// the control connection.
    func hasNews(droppingDataLinksBefore link: Int) -> Bool {
        state.withLockedValue { state in
            state.queue.removeAll { news in
                if case .event(_, let old?) = news { return old < link }
                return false
            }
            return !state.queue.isEmpty
        }
    }

    /// The next news; ``FTPNews/timedOut`` when nothing came within `timeout` (nil: wait as long
    /// as it takes). The timer runs on `eventLoop`.
    func next(timeout: TimeAmount?, on eventLoop: EventLoop) async -> FTPNews {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> (FTPNews?, Int) in
                if !state.queue.isEmpty { return (state.queue.removeFirst(), 0) }
                state.waiter = continuation
                state.generation += 1
                return (nil, state.generation)
            }
            if let news = ready.0 {
                continuation.resume(returning: news)
                return
            }
            guard let timeout else { return }
            let generation = ready.1
            let timer = eventLoop.scheduleTask(in: timeout) { [self] in expire(generation) }
            let stale = state.withLockedValue { state -> Bool in
                guard state.generation == generation, state.waiter != nil else { return true }
                state.timer = timer
                return false
            }
            if stale { timer.cancel() }
        }
    }

    private func expire(_ generation: Int) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<FTPNews, Never>? in
            guard state.generation == generation, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.timer = nil
            state.generation += 1
            return waiter
        }
        waiter?.resume(returning: .timedOut)
    }
}
