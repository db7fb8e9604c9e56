/// A call waiting for its backoff to pass before it is queued again, ordered by when it is due
/// (then by job id, so equal due times keep a stable order).
struct ScheduledRetry: Sendable, Comparable {
    var due: ContinuousClock.Instant
    var job: CallJob

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.due, lhs.job.id) < (rhs.due, rhs.job.id) }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.due == rhs.due && lhs.job.id == rhs.job.id }
}
