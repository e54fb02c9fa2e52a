/// A task's state from creation to completion, as a value (NSURLSessionTask's `state`):
/// `suspended → running → (canceling) → completed`. ``SessionTask`` keeps it behind its lock and
/// performs the actions; TaskLifecycleTests tables every transition.
struct TaskLifecycle: Sendable {
    enum State: Sendable, Equatable {
        case suspended
        case running
        /// Cancelled while running: the transfer is stopping.
        case canceling(SessionError)
        case completed(SessionError?)
    }

    enum ResumeAction: Equatable {
        /// Start the transfer.
        case start
        case none
    }

    enum CancelAction: Equatable {
        /// Never started: complete at once with this error.
        case completeNow(SessionError)
        /// Running: stop the transfer (close its connection, cancel its Swift task).
        case stopTransfer
        case none
    }

    private(set) var state = State.suspended

    mutating func resume() -> ResumeAction {
        guard state == .suspended else { return .none }
        state = .running
        return .start
    }

    mutating func cancel(_ reason: SessionError) -> CancelAction {
        switch state {
        case .suspended:
            state = .canceling(reason)
            return .completeNow(reason)
        case .running:
            state = .canceling(reason)
            return .stopTransfer
        case .canceling, .completed:
            return .none
        }
    }

    /// The transfer ended with `error`: a cancellation's reason wins over whatever the stopped
    /// transfer reported. Returns the task's final error; nil when already completed.
    mutating func transferEnded(_ error: SessionError?) -> SessionError?? {
        switch state {
        case .completed:
            return .none
        case .canceling(let reason):
            let final = error.map { reason.carryingResumeData(of: $0) } ?? reason
            state = .completed(final)
            return .some(final)
        case .running, .suspended:
            state = .completed(error)
            return .some(error)
        }
    }

    /// The cancellation reason, while canceling.
    var cancellation: SessionError? {
        if case .canceling(let reason) = state { return reason }
        return nil
    }

    var isCompleted: Bool {
        if case .completed = state { return true }
        return false
    }

    /// The public face of the state.
    var publicState: SessionTask.State {
        switch state {
        case .suspended: .suspended
        case .running: .running
        case .canceling: .canceling
        case .completed: .completed
        }
    }
}

extension SessionError {
    /// This error with the resume data another error of the same transfer carries.
    func carryingResumeData(of other: SessionError) -> SessionError {
        var copy = self
        if copy.resumeData == nil { copy.resumeData = other.resumeData }
        if copy.url == nil { copy.url = other.url }
        return copy
    }
}
