import Synchronization

/// Wakes a task waiting for a client's event queue (a consumer's queue, a producer's main queue)
/// to become non-empty.
///
/// librdkafka calls `signal()` from its own threads when it enqueues onto an empty queue. A
/// signal that arrives while nobody waits is remembered, so none is lost between a poll that found
/// nothing and the wait that follows. Cancelling the waiting task wakes it at once. A single
/// fallback timer also wakes the waiter, so a missed event costs at most `fallback` of latency,
/// never a hang.
final class RDKafkaWakeup: Sendable {
    /// How long a wait lasts at most without a signal: the most a missed wakeup can delay an
    /// event. Every other wake is an event (librdkafka's queue callback, a rebalance, a close, a
    /// cancellation), so an idle consumer wakes only this often.
    static let fallback = Duration.seconds(1)

    private struct State {
        var signaled = false
        var waiter: CheckedContinuation<Void, Never>?
        var timerArmed = false
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.signaled = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns after the next signal, at once if one arrived since the last wait, when the task
    /// is cancelled, or after `fallback` at the latest.
    func wait(fallback: Duration = RDKafkaWakeup.fallback) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (ready, armTimer) = state.withLock { state -> (Bool, Bool) in
                    if state.signaled {
                        state.signaled = false
                        return (true, false)
                    }
                    state.waiter = continuation
                    let arm = !state.timerArmed
                    state.timerArmed = true
                    return (false, arm)
                }
                if ready {
                    continuation.resume()
                } else if armTimer {
                    Task { [self] in
                        try? await Task.sleep(for: fallback)
                        state.withLock { $0.timerArmed = false }
                        signal()
                    }
                }
            }
        } onCancel: {
            signal()
        }
    }
}
