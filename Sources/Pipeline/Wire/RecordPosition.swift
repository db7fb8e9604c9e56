import Kafka

/// Where a record sits, written `topic/partition/offset`: the id of a rejected record that had
/// no readable id (its outcome is keyed by it), and how a dead letter names its own place.
public struct RecordPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The longest topic name Kafka allows, in bytes.
    public static let maxTopicBytes = 249
    /// The most bytes `description` takes: the longest topic, a partition and an offset of the
    /// most digits (a negative partition does not occur), and the two `/`.
    public static let maxDescriptionBytes = maxTopicBytes + 1 + 10 + 1 + 19

    /// The topic.
    public var topic: String
    /// The partition.
    public var partition: Int32
    /// The offset.
    public var offset: Int64

    /// A position.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// Where `record` was read from.
    public init(_ record: KafkaRecord) {
        self.init(topic: record.topic, partition: record.partition, offset: record.offset)
    }

    /// Where the broker stored a record it acknowledged.
    public init(_ report: KafkaDeliveryReport) {
        self.init(topic: report.topic, partition: report.partition, offset: report.offset)
    }

    /// `topic/partition/offset`.
    public var description: String { "\(topic)/\(partition)/\(offset)" }

    /// The position `text` writes as `description` does: a non-empty topic without `/` (Kafka's
    /// topic names have none), a partition and an offset, each decimal digits only; nil for any
    /// other text. An id of this form may be the position a rejected record without an id of its
    /// own was named by.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1...].allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let partition = Int32(parts[1]), let offset = Int64(parts[2])
        else { return nil }
        self.init(topic: String(parts[0]), partition: partition, offset: offset)
    }

    /// Reads `description`'s text; any other text fails to decode, naming it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let position = RecordPosition(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text.prefix(64))' is not a record's topic/partition/offset")
        }
        self = position
    }

    /// Writes `description`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
