import DequeModule

/// Records whose request had a call started in a delivery that was abandoned (a revoke): a set
/// bounded at `most`, forgetting the oldest first (a partition that never comes back leaves its
/// records here until newer ones push them out).
struct CalledRecords: Sendable {
    /// The most records kept: more than a worker holds in flight at once with the defaults.
    static let most = 100_000

    /// Each record kept, with the serial of its latest insertion.
    private var members: [RecordPosition: Int] = [:]
    /// Insertions, the oldest first: one whose serial is no longer its record's (removed, or
    /// inserted again since) is stale, and skipped.
    private var order: Deque<(position: RecordPosition, serial: Int)> = []
    private var nextSerial = 0

    /// Keeps `position`.
    mutating func insert(_ position: RecordPosition) {
        guard members[position] == nil else { return }
        members[position] = nextSerial
        order.append((position, nextSerial))
        nextSerial += 1
        while members.count > Self.most, let oldest = order.popFirst() {
            if members[oldest.position] == oldest.serial { members[oldest.position] = nil }
        }
        // Stale insertions left by removals: dropped once they are most of `order`.
        if order.count > 2 * max(members.count, 1_000) { order = Deque(order.filter { members[$0.position] == $0.serial }) }
    }

    /// Forgets `position`; returns whether it was kept.
    mutating func remove(_ position: RecordPosition) -> Bool {
        members.removeValue(forKey: position) != nil
    }
}
