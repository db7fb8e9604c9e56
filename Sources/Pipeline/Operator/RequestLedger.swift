import InstanceAPI

/// What is known of one request's items across its outcome and the outcomes of its replays.
///
/// A replay carries only the items that were dead-lettered (those that ended on a retryable code),
/// so its outcome settles those items and leaves the others as the first outcome said. Replaying
/// the same dead letter twice changes nothing the second time: its items are already settled.
///
/// An outcome is a replay's only when its `replayOf` is its own id (`RequestID.isReplay`). A
/// replay's success settles a retryable failure only when the replay surely carried that item:
/// every replay record it may answer (the one it names in `Outcome.record`; any of the id's when
/// it names none) that fits the outcome (`Outcome.fits`) holds it at an index the outcome does not
/// list as failed. Without such a record, its success settles nothing (an outcome lists only
/// the items that did not succeed): a failure stays a failure rather than become a success that
/// may not have happened.
struct RequestLedger: Sendable {
    /// The op of the latest outcome that had one.
    private(set) var op: RequestOp?
    /// The counts and status of the latest outcome, what an uncalled request shows: the
    /// outcome itself (its imports, receipt, member lists) is not kept, as an audit of millions of
    /// requests holds a ledger for each.
    private var latestCounts: [String: Int]
    private var latestStatus: OutcomeStatus
    /// Items that succeeded, by code.
    private var successes: [String: Int] = [:]
    /// Items that did not succeed (yet): value and latest code.
    private var failures: [(item: String, code: ResultCode)] = []
    /// Failures an outcome counted but did not name, by code: an outcome published without its
    /// item lists (`Outcome.withoutItemLists(because:)`) keeps only its counts. No replay settles
    /// them (which items it carried is not known): a failure stays a failure rather than become
    /// a success that may not have happened.
    private var unnamedFailures: [String: Int] = [:]
    /// True while the only outcomes seen are rejections and cancels: nothing was called.
    private var uncalledOnly: Bool
    /// The op and target of the outcome the items were taken from (called or cancelled): a replay
    /// of another (a record written with the id and `replayOf` for another topic or op) settles
    /// and recodes none of them.
    private var origin: (op: RequestOp?, target: [String: String])?

    /// A ledger starting from `outcome`.
    init(_ outcome: Outcome) {
        latestCounts = outcome.counts
        latestStatus = outcome.status
        op = outcome.op
        uncalledOnly = !outcome.status.called
        take(outcome)
    }

    /// Applies a later outcome of the same request, or of a replay of it, which may answer the
    /// replay records `replays` (those read).
    mutating func apply(_ outcome: Outcome, replays: [PipelineRequest]) {
        if !outcome.status.called {
            // A rejected or cancelled record changed nothing at the backend; it cannot undo what
            // was done.
            if uncalledOnly {
                (latestCounts, latestStatus) = (outcome.counts, outcome.status)
                op = outcome.op ?? op
                take(outcome)
            }
            return
        }
        let replay = RequestID.isReplay(id: outcome.requestID, replayOf: outcome.replayOf)
        // A replay of another op or target (a record written with the id and `replayOf`) is no
        // replay of these items: it neither settles nor recodes any of them.
        if replay, let origin, !Self.same(origin, (outcome.op, outcome.target)) { return }
        (latestCounts, latestStatus) = (outcome.counts, outcome.status)
        op = outcome.op ?? op
        if uncalledOnly || !replay {
            uncalledOnly = false
            take(outcome)
        } else {
            let own = replays.filter { record in origin.map { Self.same($0, (record.op, record.target.outcomeFields)) } ?? true }
            settle(byReplay: outcome, answered: Self.succeeded(in: outcome, of: own))
        }
    }

    /// `outcome` as far as a ledger reads it (and `Outcome.fits`): its imports and topic or member
    /// lists left out, for holding many.
    static func held(_ outcome: Outcome) -> Outcome {
        var held = outcome
        (held.imports, held.topics, held.topicsOmitted, held.groupMembers) = (nil, nil, nil, nil)
        return held
    }

    /// The items `outcome` lists that a ledger reads: its failed items and receipt lines.
    static func listedItems(of outcome: Outcome) -> Int {
        outcome.failedItems.count + (outcome.receipt?.count ?? 0)
    }

    /// Whether two op-and-target pairs are one request's: the same op (or one unnamed), and the
    /// same target, either side possibly cut as an outcome without its item lists cuts it.
    private static func same(_ a: (op: RequestOp?, target: [String: String]), _ b: (op: RequestOp?, target: [String: String])) -> Bool {
        guard a.op == nil || b.op == nil || a.op == b.op else { return false }
        return Outcome.sameTarget(a.target, b.target) || Outcome.sameTarget(b.target, a.target)
    }

    /// Items by their final code (a cancelled request's: `Outcome.cancelledItems`).
    var codes: [String: Int] {
        if uncalledOnly { return latestCounts }
        var codes = successes.merging(unnamedFailures, uniquingKeysWith: +)
        for failure in failures { codes[failure.code.rawValue, default: 0] += 1 }
        return codes
    }

    /// The request's status over all its outcomes.
    var status: OutcomeStatus {
        if uncalledOnly { return latestStatus }
        return OutcomeStatus.of(succeeded: successes.values.reduce(0, +), failed: failures.count + unnamedFailures.values.reduce(0, +))
    }

    private mutating func take(_ outcome: Outcome) {
        // A cancel names its request's whole target; a rejection names only a subject, if any.
        origin = outcome.status == .rejected ? nil : (outcome.op, outcome.target)
        successes = outcome.counts.filter { ResultCode(rawValue: $0.key).isSuccess }
        failures = outcome.failedItems.sorted { $0.index < $1.index }.map { ($0.item, $0.code) }
        var named: [String: Int] = [:]
        for failure in failures { named[failure.code.rawValue, default: 0] += 1 }
        unnamedFailures = [:]
        for (code, count) in outcome.counts where !ResultCode(rawValue: code).isSuccess && count > named[code, default: 0] {
            unnamedFailures[code] = count - named[code, default: 0]
        }
    }

    /// The items `replay` surely answered with a success: those every record of `records` that
    /// fits it (`Outcome.fits`) holds at an index it does not list as failed; none when no record
    /// fits. Items are told apart by their bytes (`ExactText`), as the backend tells them.
    static func succeeded(in replay: Outcome, of records: [PipelineRequest]) -> Set<ExactText> {
        let failed = Set(replay.failedItems.map(\.index))
        let held = records.filter(replay.fits).map { record in
            Set(record.items.indices.lazy.filter { !failed.contains($0) }.map { ExactText(record.items[$0]) })
        }
        guard let first = held.first else { return [] }
        return held.dropFirst().reduce(first) { $0.intersection($1) }
    }

    /// Each retryable failure the replay failed again takes the replay's code; those among
    /// `answered` (items the replay surely carried and did not fail) move to the replay's success
    /// codes; the others stay as they were.
    private mutating func settle(byReplay replay: Outcome, answered: Set<ExactText>) {
        var stillFailing = replay.failedItems.map { ($0.item, $0.code) }
        var succeededPool = replay.counts.filter { ResultCode(rawValue: $0.key).isSuccess }.sorted { $0.key < $1.key }
        var kept: [(item: String, code: ResultCode)] = []
        for failure in failures {
            guard failure.code.isRetryable else {
                kept.append(failure)
                continue
            }
            if let index = stillFailing.firstIndex(where: { ExactText($0.0) == ExactText(failure.item) }) {
                kept.append((failure.item, stillFailing.remove(at: index).1))
            } else if answered.contains(ExactText(failure.item)), let index = succeededPool.firstIndex(where: { $0.value > 0 }) {
                succeededPool[index].value -= 1
                successes[succeededPool[index].key, default: 0] += 1
            } else {
                kept.append(failure)  // not surely carried by this replay (another dead letter holds it, or its record was not read)
            }
        }
        failures = kept
    }
}
