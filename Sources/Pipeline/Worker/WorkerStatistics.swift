import InstanceAPI

/// What a worker has done so far: the figures behind the demo's summary, benchmarks and tests.
public struct WorkerStatistics: Sendable, Hashable {
    /// Records read (redeliveries of records already in flight excluded).
    public var records = 0
    /// Outcomes published, by op (`?` for a rejected record without one) and status.
    public var outcomes: [String: [OutcomeStatus: Int]] = [:]
    /// Final item results of acknowledged outcomes, by op and code (every `UNKNOWN(…)` as
    /// `UNKNOWN`: `ResultCode.tallyName(of:)`).
    public var itemCodes: [String: [String: Int]] = [:]
    /// Backend call attempts made, and how many failed as a whole.
    public var calls = 0
    /// Call attempts answered, by API and HTTP status (`none` without an answer).
    public var callAnswers: [String: [String: Int]] = [:]
    /// Call attempts that failed as a whole (5xx, 429, timeouts, refused connections).
    public var failedCalls = 0
    /// Item attempts beyond each item's first.
    public var retries = 0
    /// Dead-letter records published, by kind (`DeadLetter.Kind`).
    public var deadLetterKinds: [String: Int] = [:]
    /// Items in published dead letters.
    public var deadLetterItems = 0
    /// Call attempts answered with throttling (`RESOURCE_EXHAUSTED`, HTTP 429).
    public var throttledCalls = 0
    /// The adaptive rate per API (`iid.batchAdd`, …), calls per second, of the APIs that have a
    /// pace (an unpaced API shows its rate-limit, or nothing without one); merged, the sum over
    /// workers.
    public var rates: [String: Double] = [:]
    /// Times the circuit breaker opened.
    public var breakerOpenings = 0
    /// The most items held in flight at once.
    public var peakItemsInFlight = 0
    /// The most record bytes (keys and values) held in flight at once.
    public var peakBytesInFlight = 0
    /// Request received → outcome acknowledged.
    public var latency = LatencyHistogram()
    /// Whether an operator has paused the pipeline now; merged, whether any is.
    public var paused = false
    /// The version of each control document in force now, by scope (the pipeline's name, `*`);
    /// merged, the highest seen.
    public var controlVersions: [String: Int] = [:]
    /// Requests and items of the batches acknowledged lately (`RecentBatches.limit` at most).
    public var batches = RecentBatches()

    /// No figures yet.
    public init() {}

    /// Dead-letter records published in all.
    public var deadLetters: Int { deadLetterKinds.values.reduce(0, +) }

    /// Outcomes published in all.
    public var outcomeCount: Int { outcomes.values.reduce(0) { $0 + $1.values.reduce(0, +) } }

    /// Final items of acknowledged outcomes in all.
    public var items: Int { itemCodes.values.reduce(0) { $0 + $1.values.reduce(0, +) } }

    /// An outcome, and its dead letter of `kind` and `deadLetterItems` items if any, was
    /// acknowledged `latency` after its request arrived: its status, and its items by final code
    /// (a rejection holds none).
    mutating func notePublished(_ outcome: Outcome, deadLetter: (kind: String, items: Int)?, latency: Duration) {
        let op = outcome.op?.rawValue ?? "?"
        outcomes[op, default: [:]][outcome.status, default: 0] += 1
        if outcome.status != .rejected {
            for (code, count) in outcome.counts { itemCodes[op, default: [:]][ResultCode.tallyName(of: code), default: 0] += count }
        }
        self.latency.record(latency)
        if let batch = outcome.batch { batches.note(batch, status: outcome.status, items: outcome.counts.values.reduce(0, +)) }
        if let deadLetter {
            deadLetterKinds[deadLetter.kind, default: 0] += 1
            deadLetterItems += deadLetter.items
        }
    }

    /// Adds another worker's figures.
    public mutating func merge(_ other: WorkerStatistics) {
        records += other.records
        for (op, statuses) in other.outcomes { outcomes[op, default: [:]].merge(statuses, uniquingKeysWith: +) }
        for (op, codes) in other.itemCodes { itemCodes[op, default: [:]].merge(codes, uniquingKeysWith: +) }
        calls += other.calls
        for (api, statuses) in other.callAnswers { callAnswers[api, default: [:]].merge(statuses, uniquingKeysWith: +) }
        failedCalls += other.failedCalls
        retries += other.retries
        deadLetterKinds.merge(other.deadLetterKinds, uniquingKeysWith: +)
        deadLetterItems += other.deadLetterItems
        breakerOpenings += other.breakerOpenings
        throttledCalls += other.throttledCalls
        rates.merge(other.rates, uniquingKeysWith: +)
        peakItemsInFlight = max(peakItemsInFlight, other.peakItemsInFlight)
        peakBytesInFlight = max(peakBytesInFlight, other.peakBytesInFlight)
        latency.merge(other.latency)
        paused = paused || other.paused
        controlVersions.merge(other.controlVersions, uniquingKeysWith: max)
        batches.merge(other.batches)
    }

    /// `control: topics v3, * v1 (paused)`-style text for logs; empty when no override is in force.
    public var controlLine: String {
        guard !controlVersions.isEmpty || paused else { return "" }
        let versions = controlVersions.sorted { $0.key < $1.key }.map { "\($0.key) v\($0.value)" }.joined(separator: ", ")
        return "control: " + (versions.isEmpty ? "no override" : versions) + (paused ? " (PAUSED)" : "")
    }
}
