import NIOConcurrencyHelpers

/// A value behind a lock whose waiters sleep until it is free, for the emulator's state.
///
/// Swift's `Mutex` is a priority-inheritance futex on Linux, and the kernel spins a waiter on it
/// while the holder runs. The emulator holds its state for a whole batch (up to a millisecond for
/// 1,000 tokens), so where it shares a process with a worker (tests, `bench pipeline`), a
/// spinning waiter took the core the worker needed: `rt_mutex_slowlock_block` was 8% of
/// `bench pipeline`'s samples. This lock (pthread's, not priority-inheriting) parks a waiter.
final class SleepingLock<Value>: @unchecked Sendable {
    // @unchecked: `Value` is reached only under the lock.
    private let box: NIOLockedValueBox<Value>

    init(_ value: Value) {
        box = NIOLockedValueBox(value)
    }

    /// Runs `body` on the value while holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withLockedValue(body)
    }
}
