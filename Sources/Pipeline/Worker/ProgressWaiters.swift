/// Callers waiting for the worker's statistics to reach a condition (a benchmark waiting for its
/// last outcome): each is resumed by the event after which its condition holds, or when the worker
/// stops, never by polling.
struct ProgressWaiters {
    /// A condition on the statistics.
    typealias Condition = @Sendable (WorkerStatistics) -> Bool

    private struct Waiter {
        let condition: Condition
        let continuation: CheckedContinuation<WorkerStatistics, Never>
    }

    // Kept in place between events: rebuilding the array from tuples re-wrapped each condition in
    // one more reabstraction thunk per event, so checking it grew with every event (a quadratic
    // cost that took a third of `bench pipeline`'s throughput).
    private var waiters: [Waiter] = []

    /// True when nobody waits: the worker then skips computing statistics after its events.
    var isEmpty: Bool { waiters.isEmpty }

    /// Registers a waiter.
    mutating func add(_ condition: @escaping Condition, _ continuation: CheckedContinuation<WorkerStatistics, Never>) {
        waiters.append(Waiter(condition: condition, continuation: continuation))
    }

    /// Resumes, with `statistics`, every waiter whose condition holds for them, or every waiter
    /// when `all` (the worker stopped).
    mutating func resume(with statistics: WorkerStatistics, all: Bool = false) {
        waiters.removeAll { waiter in
            guard all || waiter.condition(statistics) else { return false }
            waiter.continuation.resume(returning: statistics)
            return true
        }
    }
}
