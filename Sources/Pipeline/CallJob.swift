/// A planned call being carried out: its items still waiting for a final result, and how many
/// attempts they have had. Retryable items of an attempt become the next attempt's job.
struct CallJob: Sendable {
    /// Unique within a worker.
    let id: Int
    let op: Operation
    let target: RequestTarget
    /// Calls with the same key take effect in arrival order; nil for independent work.
    let orderingKey: String?
    var items: [String]
    var origins: [PlannedCall.Origin]
    /// Attempts made so far in this worker (every item of a job has had the same number).
    var attempts = 0
    /// When the first attempt started, for the elapsed-time budget.
    var firstAttempt: ContinuousClock.Instant?
    /// The last failure, for dead-letter headers and messages.
    var lastError: String?

    init(id: Int, call: PlannedCall) {
        self.id = id
        self.op = call.op
        self.target = call.target
        self.orderingKey = CallPlanner.orderingKey(op: call.op, target: call.target)
        self.items = call.items
        self.origins = call.origins
    }
}
