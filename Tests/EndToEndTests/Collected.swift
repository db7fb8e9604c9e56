import Kafka
import Pipeline

/// What the fixture's reader has read from the outcome and dead-letter topics, in the order read.
struct Collected: Sendable {
    /// The outcomes, decoded.
    var outcomes: [Outcome] = []
    /// The dead letters, as read.
    var deadLetters: [KafkaRecord] = []
}
