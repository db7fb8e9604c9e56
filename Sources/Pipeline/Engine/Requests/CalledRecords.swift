import DequeModule

/// Records whose request had a call started in a delivery that was abandoned (a revoke): a set
/// bounded at `most`, forgetting the oldest first (a partition that never comes back leaves its
/// records here until newer ones push them out).
struct CalledRecords: Sendable {
    /// The most records kept: more than a worker holds in flight at once with the defaults.
    static let most = 100_000

    private var members: Set<RecordPosition> = []
    private var order: Deque<RecordPosition> = []

    /// Keeps `position`.
    mutating func insert(_ position: RecordPosition) {
        guard members.insert(position).inserted else { return }
        order.append(position)
        while order.count > Self.most, let oldest = order.popFirst() { members.remove(oldest) }
        // Removed members leave stale entries in `order`: compact once they are most of it.
        if order.count > 2 * max(members.count, 1_000) { order = Deque(order.filter(members.contains)) }
    }

    /// Forgets `position`; returns whether it was kept.
    mutating func remove(_ position: RecordPosition) -> Bool {
        members.remove(position) != nil
    }
}
