/// Matches requests with their outcomes: what has none (lost), what has more than one (repeated
/// after a crash or a rebalance), and counts by op, status and code. Counts use each request's
/// latest outcome, so a request replayed to success counts as succeeded.
public struct Reconciliation: Sendable {
    /// Requests expected, in the order given.
    public private(set) var expected: [String] = []
    private var expectedSet: Set<String> = []
    /// Outcomes seen per request id.
    public private(set) var outcomeCounts: [String: Int] = [:]
    private var latest: [String: Outcome] = [:]

    /// Nothing expected or seen yet.
    public init() {}

    /// Expects an outcome for request `id`.
    public mutating func expect(_ id: String) {
        guard expectedSet.insert(id).inserted else { return }
        expected.append(id)
    }

    /// Notes an outcome.
    public mutating func record(_ outcome: Outcome) {
        outcomeCounts[outcome.requestID, default: 0] += 1
        latest[outcome.requestID] = outcome
    }

    /// Expected requests without any outcome.
    public var missing: [String] { expected.filter { outcomeCounts[$0] == nil } }

    /// Requests with more than one outcome, and how many each has.
    public var duplicates: [String: Int] { outcomeCounts.filter { $0.value > 1 } }

    /// Outcomes for requests nobody said to expect.
    public var unexpected: [String] { outcomeCounts.keys.filter { !expectedSet.contains($0) }.sorted() }

    /// True when every expected request has an outcome.
    public var isComplete: Bool { expected.allSatisfy { outcomeCounts[$0] != nil } }

    /// Expected requests with at least one outcome.
    public var answered: Int { expected.count { outcomeCounts[$0] != nil } }

    /// Per op (`?` for a rejected record without one), requests by their latest status.
    public var statusesByOp: [String: [OutcomeStatus: Int]] {
        var table: [String: [OutcomeStatus: Int]] = [:]
        for outcome in latest.values { table[outcome.op ?? "?", default: [:]][outcome.status, default: 0] += 1 }
        return table
    }

    /// Per op, items by final code, from each request's latest outcome.
    public var codesByOp: [String: [String: Int]] {
        var table: [String: [String: Int]] = [:]
        for outcome in latest.values { table[outcome.op ?? "?", default: [:]].merge(outcome.counts, uniquingKeysWith: +) }
        return table
    }

    /// The latest outcome of request `id`.
    public func outcome(of id: String) -> Outcome? { latest[id] }
}
