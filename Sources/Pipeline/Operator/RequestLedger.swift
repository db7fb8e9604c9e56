import InstanceAPI

/// What is known of one request's items across its outcome and the outcomes of its replays.
///
/// A replay carries only the items that were dead-lettered (those that ended on a retryable code),
/// so its outcome settles those items and leaves the others as the first outcome said. Replaying
/// the same dead letter twice changes nothing the second time: its items are already settled.
struct RequestLedger: Sendable {
    /// The op of the latest outcome that had one.
    private(set) var op: RequestOp?
    /// The latest outcome.
    private(set) var latest: Outcome
    /// Items that succeeded, by code.
    private var successes: [String: Int] = [:]
    /// Items that did not succeed (yet): value and latest code.
    private var failures: [(item: String, code: ResultCode)] = []
    /// True while the only outcomes seen are rejections and cancels: nothing was called.
    private var uncalledOnly: Bool

    /// A ledger starting from `outcome`.
    init(_ outcome: Outcome) {
        latest = outcome
        op = outcome.op
        uncalledOnly = Self.calledNothing(outcome)
        take(outcome)
    }

    /// Whether `outcome` says nothing was called for its request: a rejection or a cancel.
    private static func calledNothing(_ outcome: Outcome) -> Bool {
        outcome.status == .rejected || outcome.status == .cancelled
    }

    /// Applies a later outcome of the same request (or of a replay of it).
    mutating func apply(_ outcome: Outcome) {
        if Self.calledNothing(outcome) {
            // A rejected or cancelled record changed nothing at the backend; it cannot undo what
            // was done.
            if uncalledOnly {
                latest = outcome
                op = outcome.op ?? op
                take(outcome)
            }
            return
        }
        latest = outcome
        op = outcome.op ?? op
        if uncalledOnly || outcome.replayOf == nil {
            uncalledOnly = false
            take(outcome)
        } else {
            settle(byReplay: outcome)
        }
    }

    /// Items by their final code (a cancelled request's: `Outcome.cancelledItems`).
    var codes: [String: Int] {
        if uncalledOnly { return latest.counts }
        var codes = successes
        for failure in failures { codes[failure.code.rawValue, default: 0] += 1 }
        return codes
    }

    /// The request's status over all its outcomes.
    var status: OutcomeStatus {
        if uncalledOnly { return latest.status }
        return OutcomeStatus.of(succeeded: successes.values.reduce(0, +), failed: failures.count)
    }

    private mutating func take(_ outcome: Outcome) {
        successes = outcome.counts.filter { ResultCode(rawValue: $0.key).isSuccess }
        failures = outcome.failedItems.sorted { $0.index < $1.index }.map { ($0.item, $0.code) }
    }

    /// Each retryable failure the replay failed again takes the replay's code; the others were
    /// carried by the replay and succeeded, so they move to the replay's success codes.
    private mutating func settle(byReplay replay: Outcome) {
        var stillFailing = replay.failedItems.map { ($0.item, $0.code) }
        var succeededPool = replay.counts.filter { ResultCode(rawValue: $0.key).isSuccess }.sorted { $0.key < $1.key }
        var kept: [(item: String, code: ResultCode)] = []
        for failure in failures {
            guard failure.code.isRetryable else {
                kept.append(failure)
                continue
            }
            if let index = stillFailing.firstIndex(where: { $0.0 == failure.item }) {
                kept.append((failure.item, stillFailing.remove(at: index).1))
            } else if let index = succeededPool.firstIndex(where: { $0.value > 0 }) {
                succeededPool[index].value -= 1
                successes[succeededPool[index].key, default: 0] += 1
            } else {
                kept.append(failure)  // not carried by this replay (another dead letter holds it)
            }
        }
        failures = kept
    }
}
