import Synchronization

/// Broker cuts of the embedded cluster and forks of this process, taking turns.
///
/// Taking a mock broker down closes its listening socket and binds the same port again at once
/// (librdkafka 2.0's mock asserts that the bind succeeds, and aborts the process if not). A child
/// process forked a moment before holds a copy of the old listening socket until it execs, so the
/// bind then fails with EADDRINUSE and the whole process aborts. A spawn that waits for its
/// child's exec (swift-subprocess does) inside a turn cannot overlap a cut.
///
/// A waiter is a continuation, not a blocked thread: turns are taken on the task pool without
/// starving it. Turns are granted first come, first served, and are not cancellable (each is as
/// short as one fork and exec, or one cut).
public final class ForkTurns: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// The process's one set of turns, shared by every embedded cluster and every spawn.
    public static let shared = ForkTurns()

    /// A set of turns of its own, for other work that must take turns the same way (first come,
    /// first served, a waiter a continuation); `shared` is the one forks and broker cuts take.
    public init() {}

    /// Runs `body` in a turn of its own: no other turn's body runs meanwhile.
    public func taking<T, Failure: Error>(_ body: @Sendable () async throws(Failure) -> T) async throws(Failure) -> T {
        await take()
        defer { give() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
