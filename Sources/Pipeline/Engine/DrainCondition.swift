import Kafka

/// What a drain waits for (`WorkerMachine.beginDrain(_:)`).
enum DrainCondition: Sendable, Equatable {
    /// Nothing held, nothing being published (while an operator has paused the pipeline: nothing
    /// running or publishing, since waiting work cannot start).
    case all
    /// No running call carries these requests, and nothing of these partitions is publishing.
    case partitions(Set<KafkaTopicPartition>, Set<RequestHandle>)
}
