import Kafka

/// An outcome ready to publish, the records that go before it (the dead letter, if any, and the
/// groups a `groups.export` read), and the ticket its acknowledgement hands back to the request
/// book.
struct Publication: Sendable {
    /// A record to publish to the dead-letter topic, as `DeadLetter` makes it (`leftover`,
    /// `rejected`, `stub(of:)`): nothing else builds one.
    struct DeadLetterRecord: Sendable {
        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
        /// Items it holds (an undecodable record counts one).
        var items: Int
        /// Why it is a dead letter.
        var kind: DeadLetter.Kind
        /// Where the record it stands for was read (its headers name it too).
        var position: RecordPosition

        /// The bytes the producer counts against `message.max.bytes`: key, value and headers.
        var bytes: Int { (key?.count ?? 0) + (value?.count ?? 0) + DeadLetterHeader.bytes(of: headers) }
    }

    var outcome: Outcome
    var deadLetter: DeadLetterRecord?
    /// Groups to write to the export topic before the outcome.
    var groupExports: [GroupExport] = []
    var ticket: PublishTicket
}
