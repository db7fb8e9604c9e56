/// Callers waiting for the worker's statistics to reach a condition (a benchmark waiting for its
/// last outcome): each is resumed by the event after which its condition holds, or when the worker
/// stops, never by polling.
struct ProgressWaiters {
    /// A condition on the statistics.
    typealias Condition = @Sendable (WorkerStatistics) -> Bool

    private var waiters: [(condition: Condition, continuation: CheckedContinuation<WorkerStatistics, Never>)] = []

    /// True when nobody waits: the worker then skips computing statistics after its events.
    var isEmpty: Bool { waiters.isEmpty }

    /// Registers a waiter.
    mutating func add(_ condition: @escaping Condition, _ continuation: CheckedContinuation<WorkerStatistics, Never>) {
        waiters.append((condition, continuation))
    }

    /// Resumes, with `statistics`, every waiter whose condition holds for them, or every waiter
    /// when `all` (the worker stopped).
    mutating func resume(with statistics: WorkerStatistics, all: Bool = false) {
        var waiting: [(condition: Condition, continuation: CheckedContinuation<WorkerStatistics, Never>)] = []
        for waiter in waiters {
            if all || waiter.condition(statistics) { waiter.continuation.resume(returning: statistics) } else { waiting.append(waiter) }
        }
        waiters = waiting
    }
}
