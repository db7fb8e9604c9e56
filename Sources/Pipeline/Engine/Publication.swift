import Kafka

/// An outcome ready to publish, the records that go before it (the dead letter, if any, and the
/// groups a `groups.export` read), and the ticket its acknowledgement hands back to the request
/// book.
struct Publication: Sendable {
    /// A record to publish to the dead-letter topic.
    struct DeadLetterRecord: Sendable {
        /// The most bytes of the key a stub keeps.
        static let maxStubKeyBytes = 1_024

        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
        /// Items it holds (an undecodable record counts one).
        var items: Int
        /// Why it is a dead letter.
        var kind: DeadLetter.Kind

        /// The bytes the producer counts against `message.max.bytes`: key, value and headers.
        var bytes: Int { (key?.count ?? 0) + (value?.count ?? 0) + DeadLetterHeader.bytes(of: headers) }

        /// Whether it is a stub (`stub()`).
        var isStub: Bool { headers.contains { $0.key == DeadLetterHeader.omittedBytes } }

        /// The record in its smallest form, for when it cannot be published whole: no value, the
        /// key's first `maxStubKeyBytes` bytes, and its headers (the original coordinates, the
        /// request id, the reason; `DeadLetterHeader.maxBytes` at most) with `omittedBytes`
        /// saying how many bytes were left out. A stub of a stub is itself.
        func stub() -> DeadLetterRecord {
            guard !isStub else { return self }
            let keptKey = key.map { Array($0.prefix(Self.maxStubKeyBytes)) }
            let omitted = (key?.count ?? 0) - (keptKey?.count ?? 0) + (value?.count ?? 0)
            return DeadLetterRecord(
                key: keptKey, value: nil, headers: headers + [KafkaHeader(key: DeadLetterHeader.omittedBytes, string: "\(omitted)")], items: items,
                kind: kind)
        }

        /// The record itself when it takes at most `maxBytes` bytes, else its `stub()`.
        func fitted(maxBytes: Int) -> DeadLetterRecord {
            bytes <= maxBytes ? self : stub()
        }
    }

    var outcome: Outcome
    var deadLetter: DeadLetterRecord?
    /// Groups to write to the export topic before the outcome.
    var groupExports: [GroupExport] = []
    var ticket: PublishTicket
}
