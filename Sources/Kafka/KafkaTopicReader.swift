import Foundation
import Synchronization

/// Reads whole topics outside any consumer group, from their first retained record: up to the
/// end each partition had when the reader was created, or on without end (`follow`).
///
/// It joins no group and commits nothing, so it never disturbs the workers' offsets, and any
/// number of readers can read the same topics at once. Operator tools use it to audit outcome,
/// request and dead-letter topics.
public final class KafkaTopicReader: Sendable {
    private let client: RDKafkaClient
    private let follow: Bool
    /// Per partition, the offset after the last record that existed when the reader was created.
    public let endOffsets: [KafkaTopicPartition: Int64]
    /// Per partition, the next offset to hand out; a partition is read to its end once this
    /// reaches `endOffsets`.
    private let positions: Mutex<[KafkaTopicPartition: Int64]>
    /// Set by `close()`: `records` ends.
    private let closed = Atomic(false)

    /// Starts reading every partition of `topics` from its beginning, or from `starts` where it
    /// names the partition (a later reader goes on where an earlier one ended, at its
    /// `endOffsets`).
    ///
    /// - Parameter follow: false to end at the records that existed now; true to wait for more.
    /// - Throws: `.invalidArgument` naming a topic the cluster does not have, or the broker's error.
    public init(
        configuration: KafkaConfiguration, topics: [String], follow: Bool = false, from given: [KafkaTopicPartition: Int64] = [:],
        timeout: Duration = .seconds(10)
    ) async throws(KafkaError) {
        guard !topics.isEmpty else { throw .invalidArgument(name: "topics", value: "[]", reason: "read at least one topic") }
        // End-of-partition events say where a partition really ends: the last offsets of a
        // transactional topic hold commit markers, which are never handed out as records.
        var configuration = configuration
        configuration["enable.partition.eof"] = "true"
        configuration["group.id"] = "iidbatch-reader-\(UUID().uuidString.prefix(8))"
        configuration["enable.auto.commit"] = "false"
        configuration["enable.auto.offset.store"] = "false"
        let client = try RDKafkaClient(kind: .consumer, configuration: configuration)
        let metadata = try await offload { client.metadata(timeout: timeout) }.get()
        var starts: [KafkaTopicPartition: Int64] = [:]
        var ends: [KafkaTopicPartition: Int64] = [:]
        for name in topics {
            guard let topic = metadata.topic(name) else {
                throw .invalidArgument(
                    name: "topic", value: name, reason: "the cluster has no such topic (topics: \(metadata.topics.map(\.name).joined(separator: ", ")))")
            }
            for partition in topic.partitions {
                let tp = KafkaTopicPartition(topic: name, partition: partition.id)
                let marks = try await offload { client.watermarks(tp, timeout: timeout) }.get()
                starts[tp] = max(marks.low, given[tp] ?? marks.low)
                ends[tp] = marks.high
            }
        }
        try client.assign(starts)
        self.client = client
        self.follow = follow
        self.endOffsets = ends
        self.positions = Mutex(starts)
    }

    /// Records in each partition's offset order (partitions interleave); ends when every
    /// partition is read to its end (unless following), the task is cancelled, or `close()`.
    public var records: Records { Records(reader: self) }

    /// Records that existed at creation and are not yet handed out.
    public var remaining: Int64 {
        positions.withLock { positions in
            endOffsets.reduce(0) { total, entry in total + max(0, entry.value - (positions[entry.key] ?? entry.value)) }
        }
    }

    /// True when every partition has been read to the end it had at creation.
    public var isAtEnd: Bool { remaining == 0 }

    /// Stops fetching and ends `records`, also for a task waiting in it now. Safe to call twice.
    public func close() {
        closed.store(true, ordering: .relaxed)
        client.stopBackgroundWork()
        client.context.wakeup.signal()
    }

    func next() async throws(KafkaError) -> KafkaRecord? {
        while !Task.isCancelled, !closed.load(ordering: .relaxed) {
            if !follow && isAtEnd { return nil }
            switch client.pollConsumer() {
            case .record(let record):
                // A partition read to its end goes on fetching what was produced since; those
                // records are past the snapshot unless following.
                if !follow, record.offset >= endOffsets[record.topicPartition] ?? 0 { continue }
                positions.withLock { $0[record.topicPartition] = record.offset + 1 }
                return record
            case .error(let error, let fatal):
                if fatal { throw error }
                client.context.log(.warning, "reader: \(error)")
            case .endOfPartition(let partition, let next):
                positions.withLock { $0[partition] = max($0[partition] ?? next, next) }
            case .empty:
                await client.context.wakeup.wait()
            }
        }
        return nil
    }

    /// The records of a `KafkaTopicReader`. Iterate it from one task at a time.
    public struct Records: AsyncSequence, Sendable {
        public typealias Element = KafkaRecord
        public typealias Failure = KafkaError

        let reader: KafkaTopicReader

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }

        /// Pulls one record at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let reader: KafkaTopicReader

            public mutating func next() async throws(KafkaError) -> KafkaRecord? {
                try await reader.next()
            }
        }
    }
}
