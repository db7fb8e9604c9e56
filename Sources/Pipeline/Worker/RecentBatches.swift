/// The batches a worker acknowledged outcomes of lately, with their counts: at most `limit`, the
/// least recently active forgotten first, so that per-batch metrics keep a bounded number of
/// series however many batches a pipeline runs in its life.
public struct RecentBatches: Sendable, Hashable {
    /// The most batches kept.
    public static let limit = 20

    /// One batch's figures in this worker since it was last taken in.
    public struct Tally: Sendable, Hashable {
        /// Requests by status.
        public var requests: [OutcomeStatus: Int] = [:]
        /// Items of those requests.
        public var items = 0
        /// When it was last active, in notes taken.
        fileprivate var lastActive = 0
        /// When it was taken in, in notes taken: a batch forgotten and taken in again between
        /// two looks has a new one (its counts started again).
        public fileprivate(set) var takenIn = 0
    }

    /// The batches kept, by name.
    public private(set) var tallies: [String: Tally] = [:]
    private var notes = 0

    /// None yet.
    public init() {}

    /// Counts a request of `batch` that ended `status` with `items` items; when that makes more
    /// than `limit` batches, the least recently active one is forgotten.
    public mutating func note(_ batch: String, status: OutcomeStatus, items: Int) {
        notes += 1
        if tallies[batch] == nil { tallies[batch] = Tally(takenIn: notes) }
        tallies[batch]!.requests[status, default: 0] += 1
        tallies[batch]!.items += items
        tallies[batch]!.lastActive = notes
        guard tallies.count > Self.limit, let oldest = tallies.min(by: { $0.value.lastActive < $1.value.lastActive })?.key else { return }
        tallies[oldest] = nil
    }

    /// Adds another worker's batches; the most recently active `limit` are kept.
    public mutating func merge(_ other: RecentBatches) {
        for (batch, tally) in other.tallies.sorted(by: { $0.value.lastActive < $1.value.lastActive }) {
            notes += 1
            if tallies[batch] == nil { tallies[batch] = Tally(takenIn: notes) }
            for (status, count) in tally.requests { tallies[batch]!.requests[status, default: 0] += count }
            tallies[batch]!.items += tally.items
            tallies[batch]!.lastActive = notes
        }
        while tallies.count > Self.limit, let oldest = tallies.min(by: { $0.value.lastActive < $1.value.lastActive })?.key { tallies[oldest] = nil }
    }
}
