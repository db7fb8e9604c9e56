import Kafka

/// An outcome ready to publish, the dead letter that goes before it (if any), and the ticket its
/// acknowledgement hands back to the request book.
struct Publication: Sendable {
    /// A record to publish to the dead-letter topic.
    struct DeadLetterRecord: Sendable {
        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
        /// Items it holds (an undecodable record counts one).
        var items: Int
        /// Why it is a dead letter.
        var kind: DeadLetter.Kind
    }

    var outcome: Outcome
    var deadLetter: DeadLetterRecord?
    var ticket: PublishTicket
}
