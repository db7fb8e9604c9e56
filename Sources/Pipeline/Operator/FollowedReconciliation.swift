/// A `Reconciliation` fed from topics read side by side, as `iidbatch reconcile --wait` follows
/// them: an outcome may arrive before the request it answers.
///
/// Only outcomes of expected requests count (an outcome topic may serve other request topics).
/// While `keepsEarlyOutcomes` is set, an outcome of a request not (yet) expected is kept and
/// counted when the request arrives; unset, it is dropped, as when every request was read first.
public struct FollowedReconciliation: Sendable {
    /// The audit of the outcomes counted so far.
    public private(set) var reconciliation = Reconciliation()
    /// Outcomes counted (those of expected requests).
    public private(set) var outcomes = 0
    /// True to keep outcomes that arrive before their request.
    public var keepsEarlyOutcomes = false
    /// Outcomes kept per request id (the original's, for a replay) until it is expected.
    private var early: [String: [Outcome]] = [:]

    /// Nothing expected or seen yet.
    public init() {}

    /// Outcomes kept for requests not expected yet.
    public var waiting: Int { early.values.reduce(0) { $0 + $1.count } }

    /// Expects an outcome for request `id`; counts those that arrived before it.
    public mutating func expect(_ id: String) {
        reconciliation.expect(id)
        settleEarly(id)
    }

    /// Expects an outcome for one more replay of request `id`.
    public mutating func expectReplay(of id: String) {
        reconciliation.expectReplay(of: id)
        settleEarly(id)
    }

    /// Counts `outcome` if its request is expected, keeps it if early outcomes are kept, else
    /// drops it.
    public mutating func record(_ outcome: Outcome) {
        let id = outcome.replayOf ?? outcome.requestID
        if reconciliation.isExpected(id) {
            outcomes += 1
            reconciliation.record(outcome)
        } else if keepsEarlyOutcomes {
            early[id, default: []].append(outcome)
        }
    }

    private mutating func settleEarly(_ id: String) {
        guard let kept = early.removeValue(forKey: id) else { return }
        for outcome in kept {
            outcomes += 1
            reconciliation.record(outcome)
        }
    }
}
