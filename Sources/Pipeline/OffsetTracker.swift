import Kafka

/// Tracks, per partition, which records are done, and so which offset may be stored for commit.
///
/// Requests complete out of order; an offset is storable only when every record at or below it is
/// done (its outcome and dead letters acknowledged). `takeStorable` hands out each partition's
/// new store point once, so the caller stores exactly what advanced.
public struct OffsetTracker: Sendable {
    private struct Ledger {
        /// Received, not yet passed by the store point, in offset order.
        var pending: [Int64] = []
        var head = 0
        var done: Set<Int64> = []
        /// The next offset to read once everything pending is done.
        var next: Int64?
        /// The last store point handed out.
        var handedOut: Int64?

        var storePoint: Int64? {
            head < pending.count ? pending[head] : next
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

    /// An empty tracker.
    public init() {}

    /// Notes a record handed to the worker. A record already seen, or below what was handed out,
    /// is a redelivery: returns false and tracks nothing.
    @discardableResult
    public mutating func received(_ partition: KafkaTopicPartition, offset: Int64) -> Bool {
        var ledger = ledgers[partition] ?? Ledger()
        if let next = ledger.next, offset < next { return false }
        ledger.pending.append(offset)
        ledger.next = offset + 1
        ledgers[partition] = ledger
        return true
    }

    /// Notes that a record is done.
    public mutating func completed(_ partition: KafkaTopicPartition, offset: Int64) {
        guard var ledger = ledgers[partition] else { return }
        ledger.done.insert(offset)
        ledger.advance()
        ledgers[partition] = ledger
    }

    /// For each partition whose store point advanced since the last call: the next offset to read
    /// (everything below it is done).
    public mutating func takeStorable() -> [KafkaTopicPartition: Int64] {
        var storable: [KafkaTopicPartition: Int64] = [:]
        for (partition, ledger) in ledgers {
            guard let point = ledger.storePoint, point > (ledger.handedOut ?? Int64.min) else { continue }
            storable[partition] = point
            ledgers[partition]?.handedOut = point
        }
        return storable
    }

    /// Records received and not yet done, over all partitions.
    public var inFlight: Int {
        ledgers.values.reduce(0) { $0 + ($1.pending.count - $1.head - $1.done.count) }
    }

    /// Records received and not yet done in `partition`.
    public func inFlight(_ partition: KafkaTopicPartition) -> Int {
        guard let ledger = ledgers[partition] else { return 0 }
        return ledger.pending.count - ledger.head - ledger.done.count
    }

    /// Forgets partitions that moved to another worker.
    public mutating func forget(_ partitions: [KafkaTopicPartition]) {
        for partition in partitions { ledgers[partition] = nil }
    }
}
