import NIOConcurrencyHelpers

/// Where a callback runs, so task methods called from inside one know it (re-entrancy).
enum CallbackContext {
    /// The task whose event is being delivered to the delegate.
    @TaskLocal static var notifying: ObjectIdentifier?
    /// The task whose decision the delegate is being asked for (the transfer waits for it).
    @TaskLocal static var deciding: ObjectIdentifier?
}

/// Delivers one task's events, in order, to the session delegate's ``SessionDelegate/task(_:didEmit:)``
/// and to the task's ``SessionTask/events`` subscribers, on a Swift task of its own: the transfer
/// only queues them and never waits for a slow delegate, except before a decision (``drained()``)
/// so that a decision never overtakes an earlier event.
///
/// Progress events are coalesced while queued (one `wroteData` or `sentBodyData` with the
/// summed byte count), so a slow delegate never makes the queue grow with the transfer.
final class EventDelivery: Sendable {
    private struct State {
        var queue: [TaskEvent] = []
        var head = 0
        var delivering = false
        var subscribers: [Int: AsyncStream<TaskEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// Set once `completed` was delivered: later subscribers get it at once.
        var completion: TaskEvent?
        /// Callbacks of this task currently awaiting the task's completion: the barrier must not
        /// wait for them (they wait for the transfer).
        var reentrantWaits = 0

        var isEmpty: Bool { head >= queue.count }
        /// Nothing left to deliver, or a callback of this task waits for the task itself.
        var isDrained: Bool { (isEmpty && !delivering) || reentrantWaits > 0 }
    }

    private let state = NIOLockedValueBox(State())

    /// Queues `event` for delivery to `delegate` (and the subscribers) on behalf of `task`.
    func emit(_ event: TaskEvent, for task: SessionTask, to delegate: (any SessionDelegate)?) {
        let start = state.withLockedValue { state -> Bool in
            if delegate == nil && state.subscribers.isEmpty && state.isEmpty && !state.delivering {
                // Nobody listens: nothing to queue and no task to start (a subscriber that
                // comes later sees the events from then on, and `completed` in any case).
                if case .completed = event { state.completion = event }
                return false
            }
            if case .wroteData(let bytes, let total, let expected) = event, !state.isEmpty,
               case .wroteData(let queuedBytes, _, _) = state.queue[state.queue.count - 1] {
                state.queue[state.queue.count - 1] = .wroteData(bytesWritten: queuedBytes + bytes, totalBytesWritten: total,
                                                                totalBytesExpectedToWrite: expected)
                return false
            }
            if case .sentBodyData(let bytes, let total, let expected) = event, !state.isEmpty,
               case .sentBodyData(let queuedBytes, _, _) = state.queue[state.queue.count - 1] {
                state.queue[state.queue.count - 1] = .sentBodyData(bytesSent: queuedBytes + bytes, totalBytesSent: total,
                                                                   totalBytesExpectedToSend: expected)
                return false
            }
            state.queue.append(event)
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        if start {
            Task(executorPreference: task.executor) { await self.deliver(for: task, to: delegate) }
        }
    }

    /// Returns when every queued event was delivered (the barrier before a decision and
    /// before completion). Returns at once when a callback of this task is itself waiting for
    /// the task to finish.
    func drained() async {
        // Most often nothing is queued: no continuation to make.
        if state.withLockedValue({ $0.isDrained }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state -> Bool in
                if state.isDrained { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// A new subscriber's stream, ending after `completed`.
    func subscribe() -> AsyncStream<TaskEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: TaskEvent.self)
        let done = state.withLockedValue { state -> TaskEvent? in
            if let completion = state.completion { return completion }
            state.nextSubscriber += 1
            let id = state.nextSubscriber
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: id) }
            }
            return nil
        }
        if let done {
            continuation.yield(done)
            continuation.finish()
        }
        return stream
    }

    /// A callback of this task starts (or stops) waiting for the task's completion.
    func reentrantWait(_ delta: Int) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.reentrantWaits += delta
            guard state.reentrantWaits > 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        waiters.forEach { $0.resume() }
    }

    private enum Step {
        case event(TaskEvent, [AsyncStream<TaskEvent>.Continuation])
        case done([CheckedContinuation<Void, Never>])
    }

    @concurrent private func deliver(for task: SessionTask, to delegate: (any SessionDelegate)?) async {
        while true {
            let step = state.withLockedValue { state -> Step in
                guard !state.isEmpty else {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                    state.delivering = false
                    defer { state.drainWaiters = [] }
                    return .done(state.drainWaiters)
                }
                let event = state.queue[state.head]
                state.head += 1
                return .event(event, Array(state.subscribers.values))
            }
            guard case .event(let event, let subscribers) = step else {
                if case .done(let waiters) = step { waiters.forEach { $0.resume() } }
                return
            }
            for subscriber in subscribers { subscriber.yield(event) }
            if let delegate {
                await CallbackContext.$notifying.withValue(ObjectIdentifier(task)) {
                    await delegate.task(task, didEmit: event)
                }
            }
            if case .completed = event {
                let ending = state.withLockedValue { state -> [AsyncStream<TaskEvent>.Continuation] in
                    state.completion = event
                    defer { state.subscribers = [:] }
                    return Array(state.subscribers.values)
                }
                ending.forEach { $0.finish() }
            }
        }
    }
}
