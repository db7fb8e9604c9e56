/// Matches requests with their outcomes: what has none (lost), what has more than one (repeated
/// after a crash or a rebalance, or submitted twice), and counts by op, status and code.
///
/// Replays count toward the request they replay, not as new requests and not as duplicates: a
/// replay's outcome settles the dead-lettered items of its original that its record carried, so a
/// request replayed to success counts as succeeded with all its items, and replaying the same dead
/// letter again leaves every count unchanged. A record or outcome is a replay only when its
/// `replayOf` is its own id (`RequestID.isReplay`), as `iidbatch replay` writes them; one naming
/// another id is a request of its own. A replay's success settles only items its records read
/// (`expectReplay(_:at:)`) surely carried (`RequestLedger`).
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
    /// The replay records seen, per original request id, with where each was read when known:
    /// what their outcomes can settle.
    private var replayRecords: [String: [(request: PipelineRequest, position: RecordPosition?)]] = [:]
    /// The replay records answered, per original request id, as their outcomes name them
    /// (`Outcome.record`), whether or not the record was read yet.
    private var answeredReplayRecords: [String: Set<RecordPosition>] = [:]
    /// Outcomes of replays that name no record (written by workers before 0.9.0), per original
    /// request id: each may answer any of its replay records, unless one names its record.
    private var unplacedReplayOutcomes: [String: Int] = [:]
    /// Outcomes of replays that name a record not read yet, per original request id and record,
    /// in arrival order: applied when the record is read (`followsRequestRecords`).
    private var answersOfUnreadRecords: [String: [RecordPosition: [Outcome]]] = [:]
    /// How many outcomes `answersOfUnreadRecords` holds, and how many items they list (failed
    /// items and receipt lines, `RequestLedger.listedItems`).
    private var heldAnswers = 0
    private var heldListedItems = 0
    /// Outcomes of replays naming a record not read that were applied at once, past
    /// `mostHeldAnswers` or `mostHeldListedItems`, or without `followsRequestRecords`: their
    /// successes settled nothing.
    public private(set) var unheldAnswers = 0
    private var ledgers: [String: RequestLedger] = [:]
    /// True when replay records are read beside the outcomes (`reconcile`), so that an outcome of
    /// one may come first: it is held until its record is read, at most `mostHeldAnswers`.
    public let followsRequestRecords: Bool

    /// The most outcomes held for replay records not read yet, and the most items they list
    /// together (each is held without what a ledger does not read: `RequestLedger.held(_:)`).
    public static let mostHeldAnswers = 200_000
    public static let mostHeldListedItems = 1_000_000

    /// Nothing expected or seen yet; `followsRequestRecords` as above.
    public init(followsRequestRecords: Bool = false) {
        self.followsRequestRecords = followsRequestRecords
    }

    /// Ids whose own record (not a replay's) was read: each is answered only by an outcome of
    /// its own, since a replay's lists only the items its dead letter carried.
    private var originalsRead: Set<String> = []

    /// Expects an outcome for request `id`, whose own record (not a replay's, unless `original`
    /// is false: a replay record rejected unread) was read.
    public mutating func expect(_ id: String, original: Bool = true) {
        if original { originalsRead.insert(id) }
        expectID(id)
    }

    /// Ids with an outcome of their own: neither a replay's nor a duplicate's rejection (which
    /// may be of a replay record, and lists no item).
    private var ownOutcomes: Set<String> = []

    private mutating func expectID(_ id: String) {
        guard expectedSet.insert(id).inserted else { return }
        expected.append(id)
    }

    /// Expects an outcome for one more replay of request `replay.id` (and one for that request
    /// itself), read at `position`, and keeps its items: what its outcome can settle. `replay` is
    /// a replay record (`RequestID.isReplay`). Its outcome is known by the record it names; an
    /// outcome that names none (an older worker's) answers any one replay record of the id.
    public mutating func expectReplay(_ replay: PipelineRequest, at position: RecordPosition? = nil) {
        expectID(replay.id)
        expectedReplays[replay.id, default: 0] += 1
        replayRecords[replay.id, default: []].append((replay, position))
        guard let position, let held = answersOfUnreadRecords[replay.id]?.removeValue(forKey: position) else { return }
        if answersOfUnreadRecords[replay.id]?.isEmpty == true { answersOfUnreadRecords[replay.id] = nil }
        heldAnswers -= held.count
        heldListedItems -= held.reduce(0) { $0 + RequestLedger.listedItems(of: $1) }
        for answer in held { ledgers[replay.id]!.apply(answer, replays: [replay]) }
    }

    /// Notes an outcome. A duplicate's rejection (`Outcome.duplicateOf`) counts toward
    /// `duplicates` only: the request in flight it names ends the id's work, with its own outcome.
    /// It never answers a replay record: a rejection repeats when its record is redelivered, and
    /// a record turned away is answered by its replay, once its dead letter is replayed
    /// (`missingReplays` says which are short). A replay's outcome that names its record answers
    /// that record only, however often it is delivered; its success settles only the items that
    /// record carried, once it is read (until then it is held, when `followsRequestRecords`).
    public mutating func record(_ outcome: Outcome) {
        let id = outcome.requestID
        if outcome.duplicateOf != nil {
            outcomeCounts[id, default: 0] += 1
            return
        }
        let replay = RequestID.isReplay(id: id, replayOf: outcome.replayOf)
        if replay {
            replayCounts[id, default: 0] += 1
            if let record = outcome.record {
                answeredReplayRecords[id, default: []].insert(record)
            } else {
                unplacedReplayOutcomes[id, default: 0] += 1
            }
        } else {
            outcomeCounts[id, default: 0] += 1
            ownOutcomes.insert(id)
        }
        if ledgers[id] == nil {
            ledgers[id] = RequestLedger(outcome)
        } else if replay, let named = outcome.record, !(replayRecords[id] ?? []).contains(where: { $0.position == named }) {
            let listed = RequestLedger.listedItems(of: outcome)
            if followsRequestRecords, heldAnswers < Self.mostHeldAnswers, heldListedItems + listed <= Self.mostHeldListedItems {
                answersOfUnreadRecords[id, default: [:]][named, default: []].append(RequestLedger.held(outcome))
                heldAnswers += 1
                heldListedItems += listed
            } else {
                unheldAnswers += 1
                ledgers[id]!.apply(outcome, replays: [])
            }
        } else {
            ledgers[id]!.apply(outcome, replays: replay ? records(answeredBy: outcome) : [])
        }
    }

    /// The replay records `outcome` can answer: the one it names, when it names one; any read of
    /// its id when it names none.
    private func records(answeredBy outcome: Outcome) -> [PipelineRequest] {
        let records = replayRecords[outcome.requestID] ?? []
        guard let named = outcome.record else { return records.map(\.request) }
        return records.filter { $0.position == named }.map(\.request)
    }

    /// How many replay records of request `id` have no outcome: those read whose outcome did not
    /// come, less the outcomes that name no record (each may answer any one), counted only while
    /// no outcome of the id names its record: beside one that does (workers of two versions, a
    /// record answered by both), which record an older one answered is not known, and the audit
    /// says short rather than complete.
    public func replaysShort(of id: String) -> Int {
        guard let records = replayRecords[id] else { return 0 }
        let answered = answeredReplayRecords[id] ?? []
        let unanswered = records.count { record in record.position.map { !answered.contains($0) } ?? true }
        return max(0, unanswered - (answered.isEmpty ? unplacedReplayOutcomes[id] ?? 0 : 0))
    }

    /// True when an outcome of request `id` is expected.
    public func isExpected(_ id: String) -> Bool { expectedSet.contains(id) }

    /// True when request `id` has an outcome: its own, or a replay's when only replay records of
    /// it were read. A request whose record was read is not answered by its replays' outcomes
    /// alone (its own past the outcome topic's retention, say): they list only the items their
    /// dead letters carried, and the original's other items, failed for good maybe, are unknown.
    public func isAnswered(_ id: String) -> Bool {
        ledgers[id] != nil && (!originalsRead.contains(id) || ownOutcomes.contains(id))
    }

    /// Expected requests whose record was read and for which only replays' outcomes were.
    public var answeredByReplaysOnly: [String] { expected.filter { ledgers[$0] != nil && !isAnswered($0) } }

    /// Expected requests without any outcome.
    public var missing: [String] { expected.filter { !isAnswered($0) } }

    /// Replays still without an outcome, per original request id.
    public var missingReplays: [String: Int] {
        expectedReplays.keys.reduce(into: [:]) { missing, id in
            let short = replaysShort(of: id)
            if short > 0 { missing[id] = short }
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
