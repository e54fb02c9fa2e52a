/// What runs one attempt of a task: the HTTP engine (``ExchangeRunner``), or a protocol
/// handler of the registry (``HandlerLoader``).
protocol Loader: AnyObject {
    /// Loads once: sends the request (with `additions`, a resume's range and validators) and
    /// hands the final response to `consumer`. `canRetry`: the task would retry a busy answer.
    func load(additions: [(name: String, value: String)], canRetry: Bool, consumer: some ResponseConsumer) async -> LoadOutcome
    /// Fetches byte ranges of the current resource for a segmented download; nil when the
    /// protocol cannot.
    var segmentFetcher: SegmentFetcher? { get }
}

/// Runs a task's attempts with its loader: the first load, restarts, and retries after the
/// wait the policy calls for (``TaskAttempts``), telling the delegate of each retry.
enum TaskRunner {
    static func run(_ task: SessionTask, loader: some Loader, consumer: some ResponseConsumer) async -> SessionError? {
        var attempts = TaskAttempts(policy: task.session.configuration.retryPolicy, request: task.originalRequest)
        while true {
            if let reason = task.cancellation { return reason }
            let outcome = await loader.load(additions: consumer.additions(), canRetry: attempts.canRetry, consumer: consumer)
            if let reason = task.cancellation { return reason }
            // The jitter is drawn only for a failure: a success needs no getrandom(2).
            let jitter = if case .finished = outcome { 0.0 } else { Double.random(in: 0..<1) }
            switch attempts.ended(outcome, random: jitter) {
            case .finish:
                return nil
            case .load:
                continue
            case .fail(let error):
                return error.at(task.currentRequest.url)
            case .retry(let delay, let error, let attempt):
                task.emit(.willRetry(after: delay, error: error.at(task.currentRequest.url), attempt: attempt))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return task.cancellation ?? SessionError.cancelled
                }
                task.status.withLockedValue { $0.attempt = attempt }
            }
        }
    }
}
