import Kafka

/// The headers of a dead-letter record: where it came from and why it is here; their names and
/// bounds. `DeadLetter` writes and reads them.
///
/// Guarantees: the headers `DeadLetter`'s makers write take at most `maxBytes` bytes together,
/// whatever the record, the request id or the error held: the error is cut to `maxErrorBytes` and
/// the codes to `maxCodesBytes` at UTF-8 boundaries, and the id is kept in its
/// `RequestID.shortForm(_:)`.
public enum DeadLetterHeader {
    /// The request topic the record was read from.
    public static let originalTopic = "iidbatch-original-topic"
    /// Its partition there.
    public static let originalPartition = "iidbatch-original-partition"
    /// Its offset there.
    public static let originalOffset = "iidbatch-original-offset"
    /// The request id, when one was readable (an over-long one in its `RequestID.shortForm(_:)`).
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
    /// On a stub (a dead letter too large to publish whole): the bytes of its key and value that
    /// were left out. The stub has no value; the original record is at the original topic,
    /// partition and offset.
    public static let omittedBytes = "iidbatch-omitted-bytes"

    /// On a replayed request: the `dead-letter-topic/partition/offset` it was replayed from.
    public static let replayedFrom = "iidbatch-replayed-from"

    /// The most bytes of the error a dead letter carries.
    public static let maxErrorBytes = 2_000
    /// The most bytes of the codes list a dead letter carries (whole codes only).
    public static let maxCodesBytes = 512
    /// The most bytes the headers of one dead letter take, names and values, as the producer
    /// counts them: the error, the codes and the id at their bounds, a topic name of Kafka's
    /// longest (249 bytes), and the numbers, names and a stub's `omittedBytes`.
    public static let maxBytes = 4_096

    /// The bytes `headers` take as the producer counts them against `message.max.bytes`: names
    /// and values, and up to 10 bytes of lengths each.
    public static func bytes(of headers: [KafkaHeader]) -> Int {
        headers.reduce(0) { $0 + 10 + $1.key.utf8.count + ($1.value?.count ?? 0) }
    }
}
