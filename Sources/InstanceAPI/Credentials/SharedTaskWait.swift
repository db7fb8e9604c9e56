import Synchronization

/// One caller's wait for a task that several callers share (the token being fetched): it ends
/// with the task's result, or with `CancellationError` as soon as the caller is cancelled, while
/// the task goes on for the others. Awaiting `Task.value` directly ignores the waiter's
/// cancellation, so a worker's stop would wait out a stalled token endpoint.
final class SharedTaskWait<Value: Sendable>: Sendable {
    private enum State {
        case waiting
        case parked(CheckedContinuation<Value, any Error>)
        case resolved(Result<Value, any Error>)
        case done
    }

    private let state = Mutex(State.waiting)

    private init() {}

    /// `task`'s value, or `CancellationError` once the calling task is cancelled (also when it
    /// already is).
    static func value(of task: Task<Value, any Error>) async throws -> Value {
        let wait = SharedTaskWait()
        // Lives until the task ends, as the task does: awaiting its result cannot be cut short.
        Task { wait.resolve(await task.result) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resolved = wait.state.withLock { state -> Result<Value, any Error>? in
                    guard case .resolved(let result) = state else {
                        state = .parked(continuation)
                        return nil
                    }
                    state = .done
                    return result
                }
                if let resolved { continuation.resume(with: resolved) }
            }
        } onCancel: {
            wait.resolve(.failure(CancellationError()))
        }
    }

    /// Ends the wait with `result`, now if it is parked, else when it parks; the first result wins.
    private func resolve(_ result: Result<Value, any Error>) {
        let parked = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .waiting:
                state = .resolved(result)
                return nil
            case .parked(let continuation):
                state = .done
                return continuation
            case .resolved, .done:
                return nil
            }
        }
        parked?.resume(with: result)
    }
}
