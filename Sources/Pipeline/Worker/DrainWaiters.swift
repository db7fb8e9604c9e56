import Kafka

/// The worker's pending drains: each waits for a condition on the worker's books, and is resumed
/// by the event that makes it hold (true) or by its deadline (false), never by polling.
struct DrainWaiters {
    /// What a drain waits for.
    enum Condition {
        /// Nothing held, nothing being published.
        case all
        /// No running call carries these requests, and nothing of these partitions is publishing.
        case partitions(Set<KafkaTopicPartition>, Set<RequestHandle>)
    }

    private var waiters: [Int: (condition: Condition, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextID = 0

    /// A new waiter's id.
    mutating func reserve() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Registers the waiter `id`.
    mutating func add(_ id: Int, _ condition: Condition, _ continuation: CheckedContinuation<Bool, Never>) {
        waiters[id] = (condition, continuation)
    }

    /// Resumes, with true, every waiter whose condition `holds`.
    mutating func resume(where holds: (Condition) -> Bool) {
        for (id, waiter) in waiters where holds(waiter.condition) {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Resumes waiter `id`, if still waiting, with false: its deadline passed.
    mutating func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }

    /// Resumes every waiter with false: the worker stopped.
    mutating func expireAll() {
        for id in Array(waiters.keys) { expire(id) }
    }
}
