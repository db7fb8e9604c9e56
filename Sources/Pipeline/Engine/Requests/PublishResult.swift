import Kafka

/// How a publication (its exports, dead letter and outcome) ended, as the worker's machine is told.
enum PublishResult: Sendable, Equatable {
    /// Acknowledged by the broker.
    case delivered
    /// The worker stopped first: the record stays unstored and is delivered again.
    case abandoned
    /// The client or the broker refused this record as too large (`MSG_SIZE_TOO_LARGE`): a
    /// smaller form of it may pass.
    case tooLarge(topic: String, KafkaError)
    /// The broker or client refused it for good (unknown or forbidden topic, a fatal producer,
    /// or its smallest form too large): retrying cannot help.
    case refused(topic: String, KafkaError)
}
