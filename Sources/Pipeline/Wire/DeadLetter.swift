import Foundation
import Kafka

/// A record of a dead-letter topic, read back: where it came from, why it is there, and the
/// request it holds, ready to replay.
public struct DeadLetter: Sendable {
    /// Why a record is in the dead-letter topic.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A request of the items that still failed, for retryable reasons, after their retries.
        case retryExhausted = "retry-exhausted"
        /// A record that was not a valid request, as it was read.
        case undecodable
        /// A valid request whose id was still in flight when it arrived (two replays of one
        /// request, say): kept as read, and replayable once the first has finished.
        case duplicate = "duplicate-in-flight"

        /// Whether the record holds a request that can be replayed.
        public var holdsRequest: Bool { self != .undecodable }
    }

    /// The dead-letter record itself.
    public var record: KafkaRecord
    /// Why it is there (records without the header count as `undecodable`).
    public var kind: Kind
    /// The request topic it came from.
    public var originalTopic: String?
    /// The request id, when one was readable.
    public var requestID: String?
    /// The last error.
    public var error: String
    /// The codes its items ended on (empty for an undecodable record).
    public var codes: [String]
    /// Attempts spent on its items so far.
    public var attempts: Int
    /// The request it holds, for `retryExhausted` and `duplicate` (nil for a stub).
    public var request: PipelineRequest?
    /// For a stub (a dead letter too large to publish whole): the bytes of its key and value left
    /// out. Its record is still at `originalTopic`, partition and offset, until retention ends.
    public var omittedBytes: Int?

    /// Reads the headers and the request of `record`.
    public init(_ record: KafkaRecord) {
        self.record = record
        let headers = record.headers
        kind = headers.string(DeadLetterHeader.kind).flatMap(Kind.init(rawValue:)) ?? .undecodable
        originalTopic = headers.string(DeadLetterHeader.originalTopic)
        requestID = headers.string(DeadLetterHeader.requestID)
        error = headers.string(DeadLetterHeader.error) ?? ""
        codes = headers.string(DeadLetterHeader.codes)?.split(separator: ",").map(String.init) ?? []
        attempts = headers.string(DeadLetterHeader.attempts).flatMap(Int.init) ?? 0
        omittedBytes = headers.string(DeadLetterHeader.omittedBytes).flatMap(Int.init)
        if kind.holdsRequest, let value = record.value, case .success(let request) = RequestDecoder().decode(value) {
            self.request = request
        }
    }

    /// The `dead-letter-topic/partition/offset` this record sits at.
    public var position: String { RecordPosition(record).description }

    /// The record to produce to replay it: the same request with the same id, `replayOf` naming
    /// the original request, and `priorAttempts` set to the attempts already spent; nil when
    /// there is nothing to replay (an undecodable record, or no original topic).
    public func replay() -> KafkaProducerRecord? {
        guard var request, let originalTopic else { return nil }
        request.replayOf = request.replayOf ?? request.id
        request.priorAttempts = max(request.priorAttempts, attempts)
        return KafkaProducerRecord(
            topic: originalTopic, key: record.key ?? Array(request.recordKey.utf8), value: Array(request.jsonBody()),
            headers: [KafkaHeader(key: DeadLetterHeader.replayedFrom, string: position)])
    }
}
