/// Matches requests with their outcomes: what has none (lost), what has more than one (repeated
/// after a crash or a rebalance, or submitted twice), and counts by op, status and code.
///
/// Replays count toward the request they replay, not as new requests and not as duplicates: a
/// replay's outcome settles the dead-lettered items of its original that its record carried, so a
/// request replayed to success counts as succeeded with all its items, and replaying the same dead
/// letter again leaves every count unchanged. A record or outcome is a replay only when its
/// `replayOf` is its own id (`RequestID.isReplay`), as `iidbatch replay` writes them; one naming
/// another id is a request of its own. A replay's success settles only items its records read
/// (`expectReplay(_:)`) surely carried (`RequestLedger`).
public struct Reconciliation: Sendable {
    /// Requests expected, in the order given.
    public private(set) var expected: [String] = []
    private var expectedSet: Set<String> = []
    /// Outcomes seen per request id, not counting outcomes of replays.
    public private(set) var outcomeCounts: [String: Int] = [:]
    /// Outcomes of replays seen per original request id.
    public private(set) var replayCounts: [String: Int] = [:]
    /// Replay records seen per original request id: each must get an outcome too.
    public private(set) var expectedReplays: [String: Int] = [:]
    /// The replay records seen, per original request id: what their outcomes can settle.
    private var replayRecords: [String: [PipelineRequest]] = [:]
    private var ledgers: [String: RequestLedger] = [:]

    /// Nothing expected or seen yet.
    public init() {}

    /// Expects an outcome for request `id`.
    public mutating func expect(_ id: String) {
        guard expectedSet.insert(id).inserted else { return }
        expected.append(id)
    }

    /// Expects an outcome for one more replay of request `replay.id` (and one for that request
    /// itself), and keeps its items: what its outcome can settle. `replay` is a replay record
    /// (`RequestID.isReplay`).
    public mutating func expectReplay(_ replay: PipelineRequest) {
        expect(replay.id)
        expectedReplays[replay.id, default: 0] += 1
        replayRecords[replay.id, default: []].append(replay)
    }

    /// Notes an outcome. A duplicate's rejection (`Outcome.duplicateOf`) counts toward
    /// `duplicates` only: the request in flight it names ends the id's work, with its own outcome.
    /// It never answers a replay record: an outcome does not say which record it answers, and a
    /// rejection repeats when its record is redelivered, so counting it could say complete while a
    /// replay still runs. A replay run twice with one batch thus stays short of a replay outcome
    /// until its turned-away records' dead letters are replayed (`missingReplays` says which).
    public mutating func record(_ outcome: Outcome) {
        let id = outcome.requestID
        if outcome.duplicateOf != nil {
            outcomeCounts[id, default: 0] += 1
            return
        }
        if RequestID.isReplay(id: id, replayOf: outcome.replayOf) {
            replayCounts[id, default: 0] += 1
        } else {
            outcomeCounts[id, default: 0] += 1
        }
        if ledgers[id] == nil {
            ledgers[id] = RequestLedger(outcome)
        } else {
            ledgers[id]!.apply(outcome, replays: replayRecords[id] ?? [])
        }
    }

    /// True when an outcome of request `id` is expected.
    public func isExpected(_ id: String) -> Bool { expectedSet.contains(id) }

    /// True when request `id` has an outcome (its own or a replay's).
    public func isAnswered(_ id: String) -> Bool { ledgers[id] != nil }

    /// Expected requests without any outcome.
    public var missing: [String] { expected.filter { !isAnswered($0) } }

    /// Replays still without an outcome, per original request id.
    public var missingReplays: [String: Int] {
        expectedReplays.reduce(into: [:]) { missing, entry in
            let short = entry.value - (replayCounts[entry.key] ?? 0)
            if short > 0 { missing[entry.key] = short }
        }
    }

    /// Requests with more than one outcome of their own, and how many each has.
    public var duplicates: [String: Int] { outcomeCounts.filter { $0.value > 1 } }

    /// Outcomes for requests nobody said to expect.
    public var unexpected: [String] { ledgers.keys.filter { !expectedSet.contains($0) }.sorted() }

    /// True when every expected request, and every replay of one, has an outcome.
    public var isComplete: Bool { expected.allSatisfy(isAnswered) && missingReplays.isEmpty }

    /// Expected requests with at least one outcome.
    public var answered: Int { expected.count(where: isAnswered) }

    /// Per op (`?` for a rejected record without one), requests by their status over all their
    /// outcomes.
    public var statusesByOp: [String: [OutcomeStatus: Int]] {
        var table: [String: [OutcomeStatus: Int]] = [:]
        for ledger in ledgers.values { table[ledger.op?.rawValue ?? "?", default: [:]][ledger.status, default: 0] += 1 }
        return table
    }

    /// Per op, items by final code, over each request's outcome and its replays'.
    public var codesByOp: [String: [String: Int]] {
        var table: [String: [String: Int]] = [:]
        for ledger in ledgers.values { table[ledger.op?.rawValue ?? "?", default: [:]].merge(ledger.codes, uniquingKeysWith: +) }
        return table
    }

    /// Request `id`'s status over all its outcomes.
    public func status(of id: String) -> OutcomeStatus? { ledgers[id]?.status }

    /// Request `id`'s items by final code, over all its outcomes.
    public func codes(of id: String) -> [String: Int]? { ledgers[id]?.codes }
}
