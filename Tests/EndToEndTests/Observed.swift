import Synchronization

/// A value the end-to-end tests wait on. It changes under a lock, and every change wakes its
/// waiters, which check their condition again: nothing is checked on a timer. The only clock in a
/// wait is its timeout, which guards against hangs and is never a speed check.
final class Observed<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        /// Bumped by every change: a waiter that saw `version` sleeps until it moves.
        var version = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they got to register.
        var cancelled: Set<Int> = []
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    /// A value that starts as `value`.
    init(_ value: Value) { state = Mutex(State(value: value)) }

    /// The value now.
    var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes every waiter.
    @discardableResult
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        let (result, woken) = state.withLock { state in
            let result = body(&state.value)
            state.version += 1
            defer { state.waiters = [:] }
            return (result, Array(state.waiters.values))
        }
        for waiter in woken { waiter.resume() }
        return result
    }

    /// Returns the value once `condition` holds of it: checked at once and after each change. After
    /// `timeout`, throws what `failure` makes of the value then.
    func wait(
        timeout: Duration, until condition: @escaping @Sendable (Value) -> Bool, orThrow failure: @escaping @Sendable (Value) -> any Error
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                while true {
                    let (version, value) = self.state.withLock { ($0.version, $0.value) }
                    if condition(value) { return value }
                    await self.change(after: version)
                    try Task.checkCancellation()
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw failure(value) }
            return first
        }
    }

    /// Returns once the value changed after `version` was seen, or the task is cancelled.
    private func change(after version: Int) async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let wakeNow = state.withLock { state in
                    if state.version != version || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil { state.cancelled.insert(id) }
                return waiter
            }
            waiter?.resume()
        }
        // A cancellation that came after an update had already taken the waiter left its id.
        state.withLock { _ = $0.cancelled.remove(id) }
    }
}
