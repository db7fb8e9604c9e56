import Kafka

/// Tracks, per partition, which records are done, and so which offset may be stored for commit.
///
/// Requests complete out of order; an offset is storable only when every record at or below it is
/// done (its outcome and dead letters acknowledged). `takeStorable` hands out each partition's
/// new store point once, so the caller stores exactly what advanced.
///
/// Each time a partition is (re)assigned its ledger starts afresh under a new
/// `AssignmentGeneration`. A completion names the generation its record was received in, and a
/// completion of an earlier generation never touches the current ledger: work abandoned at a
/// revoke cannot move the store point of a later assignment of the same partition.
package struct OffsetTracker: Sendable {
    private struct Ledger {
        let generation: AssignmentGeneration
        /// Received, not yet passed by the store point, in offset order.
        var pending: [Int64] = []
        var head = 0
        /// Offsets in `pending[head...]` that are done.
        var done: Set<Int64> = []
        /// The next offset to read once everything pending is done.
        var next: Int64?
        /// The last store point handed out.
        var handedOut: Int64?

        init(generation: AssignmentGeneration) { self.generation = generation }

        var storePoint: Int64? {
            head < pending.count ? pending[head] : next
        }

        var inFlight: Int { pending.count - head - done.count }

        /// True when `offset` was received and is still waiting for its store point.
        func isPending(_ offset: Int64) -> Bool {
            var low = head
            var high = pending.count
            while low < high {
                let middle = (low + high) / 2
                if pending[middle] < offset { low = middle + 1 } else { high = middle }
            }
            return low < pending.count && pending[low] == offset
        }

        /// Takes `offset` as pending; false for a redelivery of one already seen.
        mutating func receive(_ offset: Int64) -> Bool {
            if let next, offset < next { return false }
            pending.append(offset)
            next = offset + 1
            return true
        }

        /// Marks pending `offset` done and moves the store point; false when it is not pending.
        mutating func complete(_ offset: Int64) -> Bool {
            guard isPending(offset), done.insert(offset).inserted else { return false }
            advance()
            return true
        }

        mutating func advance() {
            while head < pending.count, done.remove(pending[head]) != nil { head += 1 }
            if head > 1_024, head * 2 > pending.count {
                pending.removeFirst(head)
                head = 0
            }
        }
    }

    private var ledgers: [KafkaTopicPartition: Ledger] = [:]
    private var lastGeneration = AssignmentGeneration.first

    /// An empty tracker.
    public init() {}

    /// Starts a fresh ledger for each of `partitions` (a new assignment) and returns its generation.
    @discardableResult
    public mutating func assign(_ partitions: [KafkaTopicPartition]) -> AssignmentGeneration {
        lastGeneration = lastGeneration.next
        for partition in partitions { ledgers[partition] = Ledger(generation: lastGeneration) }
        return lastGeneration
    }

    /// The generation `partition`'s ledger belongs to (nil when it is not tracked).
    public func generation(of partition: KafkaTopicPartition) -> AssignmentGeneration? {
        ledgers[partition]?.generation
    }

    /// Notes a record handed to the worker. A record already seen, or below what was handed out,
    /// is a redelivery: returns false and tracks nothing. So is a record of a partition not
    /// assigned (or already forgotten): the partition's owner gets it from the committed offset,
    /// and a ledger started for it here would take that redelivery for a new record.
    @discardableResult
    public mutating func received(_ partition: KafkaTopicPartition, offset: Int64) -> Bool {
        // Changed in place: a copy of the ledger would copy its pending offsets per record.
        guard let index = ledgers.index(forKey: partition) else { return false }
        return ledgers.values[index].receive(offset)
    }

    /// Notes that a record of `generation` (by default the partition's current one) is done.
    /// Returns false, changing nothing, for a record of an earlier generation or one not pending.
    @discardableResult
    public mutating func completed(_ partition: KafkaTopicPartition, offset: Int64, generation: AssignmentGeneration? = nil) -> Bool {
        // Changed in place: a copy of the ledger would copy its pending offsets per record.
        guard let index = ledgers.index(forKey: partition), generation.map({ $0 == ledgers.values[index].generation }) ?? true else { return false }
        return ledgers.values[index].complete(offset)
    }

    /// For each partition whose store point advanced since the last call: the next offset to read
    /// (everything below it is done).
    public mutating func takeStorable() -> [KafkaTopicPartition: Int64] {
        var storable: [KafkaTopicPartition: Int64] = [:]
        // By index, changed in place: writing to the dictionary while a `for … in` loop holds it
        // would copy every ledger, pending offsets and all.
        var index = ledgers.startIndex
        while index != ledgers.endIndex {
            if let point = ledgers.values[index].storePoint, point > (ledgers.values[index].handedOut ?? Int64.min) {
                storable[ledgers.keys[index]] = point
                ledgers.values[index].handedOut = point
            }
            ledgers.formIndex(after: &index)
        }
        return storable
    }

    /// Records received and not yet done, over all partitions.
    public var inFlight: Int {
        ledgers.values.reduce(0) { $0 + $1.inFlight }
    }

    /// Records received and not yet done in `partition`.
    public func inFlight(_ partition: KafkaTopicPartition) -> Int {
        ledgers[partition]?.inFlight ?? 0
    }

    /// Forgets partitions that moved to another worker.
    public mutating func forget(_ partitions: [KafkaTopicPartition]) {
        for partition in partitions { ledgers[partition] = nil }
    }
}
