import struct Foundation.Date

/// A record to produce: where it goes and what it holds.
public struct KafkaProducerRecord: Sendable, Hashable {
    /// The topic.
    public var topic: String
    /// A fixed partition, or nil to let the partitioner hash the key.
    public var partition: Int32?
    /// The key (nil for none).
    public var key: [UInt8]?
    /// The value (nil for a tombstone).
    public var value: [UInt8]?
    /// The headers, in order.
    public var headers: [KafkaHeader]
    /// The record's create time, to the millisecond; nil for the time it is produced. (A topic
    /// with `message.timestamp.type=LogAppendTime` replaces it with the broker's time.)
    public var timestamp: Date?

    /// A record for `topic`.
    public init(
        topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader] = [], partition: Int32? = nil, timestamp: Date? = nil
    ) {
        self.topic = topic
        self.timestamp = timestamp
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
    }
}
