/// Proof that the broker acknowledged a produced record, with where it was stored.
public struct KafkaDeliveryReport: Sendable, Hashable {
    /// The topic written to.
    public var topic: String
    /// The partition chosen (by the partitioner, or the caller).
    public var partition: Int32
    /// The offset the broker assigned.
    public var offset: Int64

    /// A report; made by the producer when the broker acknowledges a record.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}
