import Kafka

/// What an acknowledged publication releases: the record's offset in the assignment it was
/// received in, and the items it held against the in-flight bound.
struct PublishTicket: Sendable, Hashable {
    var partition: KafkaTopicPartition
    var offset: Int64
    var generation: AssignmentGeneration
    var items: Int
}
