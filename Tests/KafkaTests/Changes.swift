import Synchronization

/// What the tests' waits wake on: every change to what they watch (each `Collected` append)
/// advances a generation. A wait that saw generation `g` returns once it has moved past `g`, so a
/// change between reading a condition and starting to wait is never missed.
enum Changes {
    private struct State {
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private static let state = Mutex(State())

    /// The current generation.
    static var generation: Int { state.withLock { $0.generation } }

    /// Something watched changed: wakes every wait.
    static func signal() {
        let woken = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once the generation is past `seen`, or the task is cancelled.
    static func wait(after seen: Int) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.generation == seen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
