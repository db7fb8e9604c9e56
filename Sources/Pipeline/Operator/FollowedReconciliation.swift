import DequeModule

/// A `Reconciliation` fed from topics read side by side, as `iidbatch reconcile --wait` follows
/// them: an outcome may arrive before the request it answers.
///
/// Only outcomes of expected requests count (an outcome topic may serve other request topics).
/// While `keepsEarlyOutcomes` is set, an outcome of a request not (yet) expected is kept and
/// counted when the request arrives; unset, it is dropped, as when every request was read first.
/// At most `mostEarlyOutcomes` are kept (an outcome topic shared with other pipelines brings
/// outcomes whose requests never come): past it the oldest kept is dropped, counted in
/// `earlyDropped`, and its request, if it comes, is missing that outcome: without another of its
/// own (a replay's answers only a request whose own record was not read), the wait ends
/// incomplete.
public struct FollowedReconciliation: Sendable {
    /// The most outcomes kept for requests not expected yet.
    public static let mostEarlyOutcomes = 200_000

    /// The audit of the outcomes counted so far.
    public private(set) var reconciliation = Reconciliation(followsRequestRecords: true)
    /// Outcomes counted (those of expected requests).
    public private(set) var outcomes = 0
    /// True to keep outcomes that arrive before their request.
    public var keepsEarlyOutcomes = false
    /// Outcomes kept per request id (a replay's is its original's) until it is expected.
    private var early: [String: Deque<Outcome>] = [:]
    /// The ids of `early`'s outcomes in the order they arrived, one entry per outcome kept.
    private var arrivals: Deque<String> = []
    /// Early outcomes dropped, the oldest first, past `mostEarlyOutcomes`.
    public private(set) var earlyDropped = 0
    /// Expected requests without an outcome, and those with replays still without one: kept
    /// as they change, so `isComplete` costs nothing per record.
    private var unanswered: Set<String> = []
    private var replaysShort: Set<String> = []

    /// Nothing expected or seen yet.
    public init() {}

    /// True when every expected request, and every replay of one, has an outcome: what
    /// `reconciliation.isComplete` says, without going through every request.
    public var isComplete: Bool { unanswered.isEmpty && replaysShort.isEmpty }

    /// Outcomes kept for requests not expected yet.
    public private(set) var waiting = 0

    /// Expects an outcome for request `id` (`original`: its own record was read, not a replay's;
    /// `Reconciliation.expect(_:original:)`); counts those that arrived before it.
    public mutating func expect(_ id: String, original: Bool = true) {
        reconciliation.expect(id, original: original)
        settleEarly(id)
        refresh(id)
    }

    /// Expects an outcome for one more replay of request `replay.id`, a replay record read at
    /// `position` (`Reconciliation.expectReplay(_:at:)`).
    public mutating func expectReplay(_ replay: PipelineRequest, at position: RecordPosition? = nil) {
        reconciliation.expectReplay(replay, at: position)
        settleEarly(replay.id)
        refresh(replay.id)
    }

    /// Counts `outcome` if its request is expected, keeps it if early outcomes are kept, else
    /// drops it.
    public mutating func record(_ outcome: Outcome) {
        let id = outcome.requestID
        if reconciliation.isExpected(id) {
            outcomes += 1
            reconciliation.record(outcome)
            refresh(id)
        } else if keepsEarlyOutcomes {
            early[id, default: []].append(outcome)
            arrivals.append(id)
            waiting += 1
            if waiting > Self.mostEarlyOutcomes { dropOldestEarly() }
        }
    }

    private mutating func refresh(_ id: String) {
        if reconciliation.isAnswered(id) { unanswered.remove(id) } else { unanswered.insert(id) }
        if reconciliation.replaysShort(of: id) > 0 {
            replaysShort.insert(id)
        } else {
            replaysShort.remove(id)
        }
    }

    /// Drops the oldest outcome kept. `arrivals` holds an entry per outcome kept, and those of a
    /// request that came since (`settleEarly`): skipped here, and left out when they are most.
    private mutating func dropOldestEarly() {
        while let id = arrivals.popFirst() {
            guard early[id] != nil else { continue }
            early[id]!.removeFirst()
            if early[id]!.isEmpty { early[id] = nil }
            waiting -= 1
            earlyDropped += 1
            return
        }
    }

    private mutating func settleEarly(_ id: String) {
        guard let kept = early.removeValue(forKey: id) else { return }
        waiting -= kept.count
        if arrivals.count > 2 * max(waiting, 1_000) { arrivals = Deque(arrivals.filter { early[$0] != nil }) }
        for outcome in kept {
            outcomes += 1
            reconciliation.record(outcome)
        }
    }
}
