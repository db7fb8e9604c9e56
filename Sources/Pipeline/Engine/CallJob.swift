import InstanceAPI
import WireJSON

/// A planned call being carried out: its items still waiting for a final result, and how many
/// attempts they have had. Retryable items of an attempt become the next attempt's job.
struct CallJob: Sendable {
    /// The attempt's id, unique among a worker's attempts: given when the attempt starts (0 before).
    var id = 0
    /// The op.
    let op: RequestOp
    /// The target.
    let target: RequestTarget
    /// Calls with the same key take effect in arrival order; nil for independent work.
    let orderingKey: String?
    /// The items still waiting for a final result.
    var items: PackedStrings
    /// Where each item came from.
    var origins: OriginList
    /// Attempts made so far in this worker (every item of a job has had the same number).
    var attempts = 0
    /// Attempts answered with throttling (`RESOURCE_EXHAUSTED`, 429): paced, not charged to
    /// `max-attempts`, but reported with the item's attempts.
    var throttles = 0
    /// When the first attempt started, for the elapsed-time budget.
    var firstAttempt: ContinuousClock.Instant?
    /// The worker's outage time (circuit breaker open) when the first attempt started: time spent
    /// in an outage after it is not charged to the elapsed-time budget.
    var outageAtFirstAttempt: Duration = .zero
    /// The last failure, for dead-letter headers and messages.
    var lastError: String?
    /// When an attempt last failed for the whole system (an outage, a refusal of the caller).
    /// Should it fail so again after a call of its API was answered meanwhile, the failure is its
    /// own, and it is charged.
    var systemFailedAt: ContinuousClock.Instant?

    /// The same job with no items, to take some of another attempt's items into.
    func emptied() -> CallJob {
        var job = self
        job.items = []
        job.origins = []
        return job
    }

    /// Takes the items at `positions` of `other` (an attempt of the same call).
    mutating func take(_ positions: Range<Int>, of other: CallJob) {
        items.append(positions, of: other.items)
        origins.append(positions, of: other.origins)
    }

    /// Removes the items whose request is in `handles`; returns how many were removed.
    @discardableResult
    mutating func drop(_ handles: Set<RequestHandle>) -> Int {
        var call = PlannedCall(op: op, target: target, items: items, origins: origins)
        let removed = call.drop(handles)
        guard removed > 0 else { return 0 }
        (items, origins) = (call.items, call.origins)
        return removed
    }

    /// A job for `call`'s first attempt.
    init(call: PlannedCall) {
        self.op = call.op
        self.target = call.target
        self.orderingKey = OrderingRule.key(op: call.op, target: call.target)
        self.items = call.items
        self.origins = call.origins
    }
}
