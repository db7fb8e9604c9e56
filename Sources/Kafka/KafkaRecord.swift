import struct Foundation.Date

/// A record read by a `KafkaConsumer`: its bytes exactly as produced, and where it was stored.
public struct KafkaRecord: Sendable, Hashable {
    /// The topic it was read from.
    public var topic: String
    /// The partition it was read from.
    public var partition: Int32
    /// Its offset in that partition.
    public var offset: Int64
    /// The key bytes, or nil for a null key.
    public var key: [UInt8]?
    /// The value bytes, or nil for a null value (a tombstone).
    public var value: [UInt8]?
    /// The headers, in order, repeated keys included.
    public var headers: [KafkaHeader]
    /// The record's timestamp (create or log-append time), when the broker gave one.
    public var timestamp: Date?

    /// A record; used by the consumer and by tests.
    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8]?,
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// Where the record was stored.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }
}
