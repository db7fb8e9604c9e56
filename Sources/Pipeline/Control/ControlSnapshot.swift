import Foundation
import Kafka

/// The control topic read from its start to a point: the board then in force, every record's
/// change in order (what `iidbatch control history` prints), and where each partition ended.
public struct ControlSnapshot: Sendable {
    /// One record of the topic and what it did.
    public struct Entry: Sendable, Hashable {
        /// The record's offset.
        public var offset: Int64
        /// When the broker stored it, if it says.
        public var timestamp: Date?
        /// What it did.
        public var change: ControlBoard.Change
    }

    /// The documents in force after the last record.
    public private(set) var board = ControlBoard()
    /// Every record read, in offset order (compaction may have removed older ones).
    public private(set) var history: [Entry] = []
    /// Per partition, the offset after the last record read: where following goes on.
    public private(set) var endOffsets: [KafkaTopicPartition: Int64]

    /// Nothing read yet of a topic ending at `endOffsets`.
    init(endOffsets: [KafkaTopicPartition: Int64]) {
        self.endOffsets = endOffsets
    }

    /// Reads the next record.
    mutating func read(_ record: KafkaRecord) {
        history.append(Entry(offset: record.offset, timestamp: record.timestamp, change: board.receive(record)))
        endOffsets[record.topicPartition] = max(endOffsets[record.topicPartition] ?? 0, record.offset + 1)
    }
}
