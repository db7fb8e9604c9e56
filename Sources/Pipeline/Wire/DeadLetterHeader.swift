import Kafka

/// The headers of a dead-letter record: where it came from and why it is here.
public enum DeadLetterHeader {
    /// The request topic the record was read from.
    public static let originalTopic = "iidbatch-original-topic"
    /// Its partition there.
    public static let originalPartition = "iidbatch-original-partition"
    /// Its offset there.
    public static let originalOffset = "iidbatch-original-offset"
    /// The request id, when one was readable.
    public static let requestID = "iidbatch-request-id"
    /// The last error: a result code and the backend's words, or the decode error.
    public static let error = "iidbatch-error"
    /// The result codes the dead-lettered items ended on, comma-separated (`RESOURCE_EXHAUSTED`);
    /// absent for an undecodable record. `iidbatch replay --code` selects on it.
    public static let codes = "iidbatch-codes"
    /// Attempts spent on the items, this record's and earlier ones.
    public static let attempts = "iidbatch-attempts"
    /// The `DeadLetter.Kind`: `retry-exhausted` (a request of the leftover items), `undecodable`
    /// (the bytes as read) or `duplicate-in-flight` (a valid request as read, its id then busy).
    public static let kind = "iidbatch-dead-letter-kind"

    /// On a replayed request: the `dead-letter-topic/partition/offset` it was replayed from.
    public static let replayedFrom = "iidbatch-replayed-from"

    /// The headers for a dead letter of the record at `partition`/`offset`.
    static func headers(
        partition: KafkaTopicPartition, offset: Int64, requestID: String?, error message: String, attempts count: Int, codes resultCodes: [String] = [],
        kind deadLetterKind: DeadLetter.Kind
    ) -> [KafkaHeader] {
        var headers = [
            KafkaHeader(key: originalTopic, string: partition.topic),
            KafkaHeader(key: originalPartition, string: "\(partition.partition)"),
            KafkaHeader(key: originalOffset, string: "\(offset)"),
            KafkaHeader(key: error, string: String(message.prefix(2_000))),
            KafkaHeader(key: attempts, string: "\(count)"),
            KafkaHeader(key: kind, string: deadLetterKind.rawValue),
        ]
        if let requestID { headers.append(KafkaHeader(key: Self.requestID, string: requestID)) }
        if !resultCodes.isEmpty { headers.append(KafkaHeader(key: codes, string: resultCodes.joined(separator: ","))) }
        return headers
    }
}
