/// What a `KafkaConsumer` hands its reader, in the order librdkafka produced it.
public enum KafkaConsumerEvent: Sendable {
    /// A record from an assigned partition.
    case record(KafkaRecord)
    /// The group gave this member these partitions; records from them follow.
    case partitionsAssigned([KafkaTopicPartition])
    /// The group is taking these partitions away.
    ///
    /// They move only when the reader asks for the next event. Before that, the reader finishes or
    /// abandons its in-flight work for them and stores the offsets of what is done; the consumer
    /// then commits the stored offsets and gives the partitions up. When `lost` is true another
    /// member may already own them and a commit would be refused, so none is attempted.
    case partitionsRevoked([KafkaTopicPartition], lost: Bool)
}
