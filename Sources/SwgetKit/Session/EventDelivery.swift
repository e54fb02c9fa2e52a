import NIOConcurrencyHelpers

/// Where a callback runs, so task methods called from inside one know it (re-entrancy).
enum CallbackContext {
    /// The task whose event is being delivered to the delegate.
    @TaskLocal static var notifying: ObjectIdentifier?
    /// The task whose decision the delegate is being asked for (the transfer waits for it).
    @TaskLocal static var deciding: ObjectIdentifier?
}

/// Delivers one task's events, in order, to the session delegate and to the task's
/// ``SessionTask/events`` subscribers. For ``SessionDelegate/task(_:didEmit:)``, on a Swift task
/// of its own: the transfer only queues them and never waits for a slow delegate, except before a
/// decision (``drained()``) so that a decision never overtakes an earlier event. For an
/// ``ImmediateEventDelegate``, on the thread that emits: the first emitter finds the queue idle,
/// delivers its event and whatever other threads queued meanwhile, and returns; no task is made.
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

    /// Who hears a session's events besides the subscribers, and which kinds
    /// (``Session/delegate`` and its ``SessionDelegate/eventKinds``, judged once).
    enum Listener: Sendable {
        case none
        /// Called on a task of its own per run of queued events.
        case task(any SessionDelegate, TaskEvent.Kinds)
        /// Called on the emitting thread (so are the subscribers without a delegate).
        case immediate(any ImmediateEventDelegate, TaskEvent.Kinds)

        init(_ delegate: (any SessionDelegate)?) {
            guard let delegate, !delegate.eventKinds.isEmpty else {
                self = .none
                return
            }
            if let immediate = delegate as? any ImmediateEventDelegate {
                self = .immediate(immediate, immediate.eventKinds)
            } else {
                self = .task(delegate, delegate.eventKinds)
            }
        }

        /// Whether the delegate hears events of `kind`.
        func wants(_ kind: TaskEvent.Kinds) -> Bool {
            switch self {
            case .none: false
            case .task(_, let kinds), .immediate(_, let kinds): kinds.contains(kind)
            }
        }
    }

    /// Whether anyone hears events of `kind` now: the listener, or a subscriber.
    func wants(_ kind: TaskEvent.Kinds, listener: Listener) -> Bool {
        listener.wants(kind) || !state.withLockedValue { $0.subscribers.isEmpty }
    }

    /// Queues `event` for delivery to `listener` (and the subscribers) on behalf of `task`.
    func emit(_ event: TaskEvent, for task: SessionTask, to listener: Listener) {
        let start = state.withLockedValue { state -> Start in
            if state.subscribers.isEmpty && !listener.wants(event.kind) {
                // Nobody listens: nothing to queue and no task to start (a subscriber that
                // comes later sees the events from then on, and `completed` in any case).
                if case .completed = event { state.completion = event }
                return .queued
            }
            if case .wroteData(let bytes, let total, let expected) = event, !state.isEmpty,
               case .wroteData(let queuedBytes, _, _) = state.queue[state.queue.count - 1] {
                state.queue[state.queue.count - 1] = .wroteData(bytesWritten: queuedBytes + bytes, totalBytesWritten: total,
                                                                totalBytesExpectedToWrite: expected)
                return .queued
            }
            if case .sentBodyData(let bytes, let total, let expected) = event, !state.isEmpty,
               case .sentBodyData(let queuedBytes, _, _) = state.queue[state.queue.count - 1] {
                state.queue[state.queue.count - 1] = .sentBodyData(bytesSent: queuedBytes + bytes, totalBytesSent: total,
                                                                   totalBytesExpectedToSend: expected)
                return .queued
            }
            guard !state.delivering else {
                state.queue.append(event)
                return .queued
            }
            state.delivering = true
            if case .task = listener {
                state.queue.append(event)
                return .task
            }
            // Delivered by this thread at once (an immediate delegate, or subscribers only: a
            // yield never blocks): the event never goes through the queue.
            return .now(Array(state.subscribers.values))
        }
        switch start {
        case .queued:
            return
        case .task:
            Task(executorPreference: task.executor) { await self.deliver(for: task, to: listener) }
        case .now(let subscribers):
            deliverNow(.event(event, subscribers), for: task, to: listener)
        }
    }

    /// What the emitting thread does once the event is handed over.
    private enum Start {
        /// Nothing: the event is queued for the thread or task already delivering, or dropped.
        case queued
        /// Starts a task that delivers the queue to the async delegate.
        case task
        /// Delivers the event itself, to these subscribers and the immediate delegate.
        case now([AsyncStream<TaskEvent>.Continuation])
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

    /// The next queued event and the subscribers to hand it to; or, with the queue empty, the
    /// end of this run of deliveries and the barrier's waiters to wake.
    private func nextStep() -> Step {
        state.withLockedValue { state -> Step in
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
    }

    /// After `completed` was handed out: later subscribers get it at once, current ones end.
    private func ended(with event: TaskEvent) {
        let ending = state.withLockedValue { state -> [AsyncStream<TaskEvent>.Continuation] in
            state.completion = event
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        ending.forEach { $0.finish() }
    }

    @concurrent private func deliver(for task: SessionTask, to listener: Listener) async {
        while true {
            switch nextStep() {
            case .done(let waiters):
                waiters.forEach { $0.resume() }
                return
            case .event(let event, let subscribers):
                for subscriber in subscribers { subscriber.yield(event) }
                if case .task(let delegate, let kinds) = listener, kinds.contains(event.kind) {
                    await CallbackContext.$notifying.withValue(ObjectIdentifier(task)) {
                        await delegate.task(task, didEmit: event)
                    }
                }
                if case .completed = event { ended(with: event) }
            }
        }
    }

    /// The synchronous run: this thread delivers `first`, then whatever other threads queued
    /// meanwhile, until the queue is empty.
    private func deliverNow(_ first: Step, for task: SessionTask, to listener: Listener) {
        var step = first
        while true {
            switch step {
            case .done(let waiters):
                waiters.forEach { $0.resume() }
                return
            case .event(let event, let subscribers):
                for subscriber in subscribers { subscriber.yield(event) }
                if case .immediate(let delegate, let kinds) = listener, kinds.contains(event.kind) {
                    delegate.task(task, didEmitNow: event)
                }
                if case .completed = event { ended(with: event) }
            }
            step = nextStep()
        }
    }
}
