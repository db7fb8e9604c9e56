import Kafka

/// What an acknowledged publication releases: the record's offset in the assignment it was
/// received in, and the items and record bytes it held against the in-flight bounds.
struct PublishTicket: Sendable, Hashable {
    var partition: KafkaTopicPartition
    var offset: Int64
    var generation: AssignmentGeneration
    var items: Int
    var bytes: Int
}
