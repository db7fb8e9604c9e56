import InstanceAPI
import WireJSON

/// A planned call being carried out: its items still waiting for a final result, and how many
/// attempts they have had. Retryable items of an attempt become the next attempt's job.
struct CallJob: Sendable {
    /// The attempt's id, unique among a worker's attempts: given when the attempt starts (0 before).
    var id = 0
    /// The planned call, as far as it is still to be carried out: its op and target, and the items
    /// still waiting for a final result with their origins. The job's op, target, items and
    /// origins are this call's, read through it.
    private(set) var call: PlannedCall
    /// The backend API every attempt calls (`RequestOp.api(on:)` of the pipeline's backend, taken
    /// when the call was planned): pacing, limits, statistics and the executor all key on it.
    let api: BackendAPI
    /// Calls with the same key take effect in arrival order; nil for independent work.
    let orderingKey: String?
    /// Attempts made so far in this worker (every item of a job has had the same number).
    var attempts = 0
    /// Attempts answered with throttling (`RESOURCE_EXHAUSTED`, 429): paced, not charged to
    /// `max-attempts`, but reported with the item's attempts.
    var throttles = 0
    /// Attempts that failed for the whole system before the breaker opened (not the job's own):
    /// not charged to `max-attempts`, but they grow its backoff and are reported with its attempts.
    var unchargedFailures = 0
    /// Of `unchargedFailures`, those the breaker could count (`CircuitBreaker.mayOpen`: no
    /// success just before them) or that came after others were answered since the job's last
    /// failure. After the breaker's threshold of them with the breaker still closed the job meets
    /// a system that answers others, and is charged from then on. Failures right after a success,
    /// which cannot open the breaker, do not use that allowance up (a first failure never, but
    /// when the breaker could open on it: an outage's onset).
    var countedOutageFailures = 0
    /// The breaker's count of successes (`CircuitBreaker.successes`) at the job's latest failure
    /// (a withdrawal is none): more since says others were answered meanwhile.
    var successesSeen = 0
    /// Every attempt made and answered: charged, throttled or failed for the whole system before
    /// the breaker opened (attempts while it was open are not counted).
    var attemptsMade: Int { attempts + throttles + unchargedFailures }
    /// Whether an attempt failed before: charged, throttled or for the whole system.
    var hasFailed: Bool { attemptsMade > 0 || systemFailedAt != nil }
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

    /// Whether an earlier attempt may have taken effect unseen: it failed in a way that may follow
    /// a call carried out (`InstanceAPIError.mayHaveBeenCarriedOut`: a timeout, a lost connection,
    /// a 5xx, charged or not), or its items were answered with a retryable code. Never for an
    /// attempt refused, throttled or never sent. The executor's `isRetry`.
    var mayHaveTakenEffect = false

    /// The op.
    var op: RequestOp { call.op }
    /// The target.
    var target: RequestTarget { call.target }
    /// The items still waiting for a final result.
    var items: PackedStrings { call.items }
    /// Where each item came from.
    var origins: OriginList { call.origins }

    /// The same job with no items, to take some of another attempt's items into.
    func emptied() -> CallJob {
        var job = self
        job.call = PlannedCall(op: call.op, target: call.target)
        return job
    }

    /// Takes the items at `positions` of `other` (an attempt of the same call).
    mutating func take(_ positions: Range<Int>, of other: CallJob) {
        call.append(positions, of: other.call)
    }

    /// Removes the items whose request is in `handles`; returns how many were removed.
    @discardableResult
    mutating func drop(_ handles: Set<RequestHandle>) -> Int {
        call.drop(handles)
    }

    /// A job for `call`'s first attempt, calling `api`.
    init(call: PlannedCall, api: BackendAPI) {
        self.call = call
        self.api = api
        self.orderingKey = OrderingRule.key(op: call.op, target: call.target)
    }
}
