import Foundation
import InstanceAPI
import Kafka
import WireJSON

/// A record of a dead-letter topic, read back: where it came from, why it is there, and the
/// request it holds, ready to replay; and the one maker of the records the worker writes there
/// (`leftover(_:key:from:offset:lastError:attempts:codes:)`, `rejected(_:_:kind:)`,
/// `stub(of:)`), so that the format is written and read in this file only.
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
    /// Where the original record was read, when its headers name the topic, partition and offset.
    public var originalPosition: RecordPosition?
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
        // A header whose text is not stream-safe (`StreamSafeText`) is read as absent: tools key
        // and compare these values, in time quadratic in such text.
        let headers = SafeHeaders(record.headers)
        kind = Self.kind(of: record)
        originalTopic = headers.string(DeadLetterHeader.originalTopic)
        if let originalTopic, let partition = headers.string(DeadLetterHeader.originalPartition).flatMap(Int32.init),
            let offset = headers.string(DeadLetterHeader.originalOffset).flatMap(Int64.init)
        {
            originalPosition = RecordPosition(topic: originalTopic, partition: partition, offset: offset)
        }
        requestID = headers.string(DeadLetterHeader.requestID)
        error = headers.string(DeadLetterHeader.error) ?? ""
        codes = headers.string(DeadLetterHeader.codes)?.split(separator: ",").map(String.init) ?? []
        // Held at what a request may say, so that a letter's replay decodes whatever the header.
        attempts = min(max(headers.string(DeadLetterHeader.attempts).flatMap(Int.init) ?? 0, 0), PipelineRequest.maxPriorAttempts)
        omittedBytes = headers.string(DeadLetterHeader.omittedBytes).flatMap(Int.init)
        if kind.holdsRequest, let value = record.value, case .success(let request) = RequestDecoder.unlimited.decode(value) {
            self.request = request
        }
    }

    /// A record's headers as read: the last of a name, as absent when its text is past the
    /// stream-safe limit.
    private struct SafeHeaders {
        let headers: [KafkaHeader]
        init(_ headers: [KafkaHeader]) { self.headers = headers }
        func string(_ name: String) -> String? { headers.string(name).flatMap { StreamSafeText.exceedsLimit($0) ? nil : $0 } }
    }

    /// Why `record` is in the dead-letter topic, from its headers alone (without reading its
    /// request): a record without the header, or with a kind this version does not know, is
    /// `undecodable`.
    public static func kind(of record: KafkaRecord) -> Kind {
        let named = record.headers.string(DeadLetterHeader.kind)
        return Kind.allCases.first { kind in named.map { kind.rawValue.utf8.elementsEqual($0.utf8) } == true } ?? .undecodable
    }

    /// Whether `letter` is a stub (`stub(of:)`): its value left out, the bytes omitted named.
    static func isStub(_ letter: Publication.DeadLetterRecord) -> Bool {
        letter.headers.contains { $0.key.utf8.elementsEqual(DeadLetterHeader.omittedBytes.utf8) }
    }

    /// The `dead-letter-topic/partition/offset` this record sits at.
    public var position: String { RecordPosition(record).description }

    /// The record to produce to replay it: the same request with the same id, `replayOf` that id
    /// (a replay is of its own id, `RequestID.isReplay`, also when the dead-lettered record named
    /// another), and `priorAttempts` set to the attempts already spent, keyed as the original was
    /// (its request's ordering key when it had none: a key that is the original's position was
    /// added for a topic that takes no record without one, `keyedByPosition(_:)`); nil when
    /// there is nothing to replay (an undecodable record, or no original topic). With `batch`,
    /// the replay belongs to that batch instead of the original's.
    public func replay(batch: String? = nil) -> KafkaProducerRecord? {
        guard var request, let originalTopic else { return nil }
        if let batch { request.batch = batch }
        request.replayOf = request.id
        request.priorAttempts = min(max(request.priorAttempts, attempts), PipelineRequest.maxPriorAttempts)
        let addedKey = originalPosition.map { Array($0.description.utf8) }
        let key = record.key.flatMap { $0 == addedKey ? nil : $0 }
        return KafkaProducerRecord(
            topic: originalTopic, key: key ?? Array(request.recordKey.utf8), value: Array(request.jsonBody()),
            headers: [KafkaHeader(key: DeadLetterHeader.replayedFrom, string: position)])
    }

    // MARK: - Writing

    /// The most bytes of the key a stub keeps.
    static let maxStubKeyBytes = 1_024

    /// The dead letter of a request's leftover items, `retryExhausted`: `leftover` (a request of
    /// the items that still failed for retryable reasons after their retries, with the original
    /// id, op and target) as its value, `key` (the original record's) as its key, and headers
    /// naming the original record at `partition`/`offset`, the last error, the attempts spent and
    /// the codes the items ended on. Its headers take at most `DeadLetterHeader.maxBytes`.
    static func leftover(
        _ leftover: PipelineRequest, key: [UInt8]?, from partition: KafkaTopicPartition, offset: Int64, lastError: String, attempts: Int,
        codes: [String]
    ) -> Publication.DeadLetterRecord {
        let headers = headers(
            partition: partition, offset: offset, requestID: leftover.id, error: lastError, attempts: attempts, codes: codes, kind: .retryExhausted)
        return Publication.DeadLetterRecord(
            key: key, value: Array(leftover.jsonBody()), headers: headers, items: leftover.items.count, kind: .retryExhausted,
            position: RecordPosition(topic: partition.topic, partition: partition.partition, offset: offset))
    }

    /// The dead letter of `record`, which is not a request to work on now (`undecodable`, or a
    /// `duplicate` of a request in flight, as `kind` says): its key and value as read, and headers
    /// naming it, the rejection's id and reason, and no attempts. It counts one item. Its headers
    /// take at most `DeadLetterHeader.maxBytes`.
    static func rejected(_ record: KafkaRecord, _ rejection: RequestRejection, kind: Kind) -> Publication.DeadLetterRecord {
        let headers = headers(
            partition: record.topicPartition, offset: record.offset, requestID: rejection.requestID, error: rejection.description, attempts: 0,
            kind: kind)
        return Publication.DeadLetterRecord(key: record.key, value: record.value, headers: headers, items: 1, kind: kind, position: RecordPosition(record))
    }

    /// `letter` in its smallest form, for when it cannot be published whole: no value, the key's
    /// first `maxStubKeyBytes` bytes, and its headers (the original coordinates, the request id,
    /// the reason; `DeadLetterHeader.maxBytes` at most) with `DeadLetterHeader.omittedBytes`
    /// saying how many bytes were left out. A stub of a stub is itself.
    static func stub(of letter: Publication.DeadLetterRecord) -> Publication.DeadLetterRecord {
        guard !isStub(letter) else { return letter }
        let keptKey = letter.key.map { Array($0.prefix(maxStubKeyBytes)) }
        let omitted = (letter.key?.count ?? 0) - (keptKey?.count ?? 0) + (letter.value?.count ?? 0)
        return Publication.DeadLetterRecord(
            key: keptKey, value: nil, headers: letter.headers + [KafkaHeader(key: DeadLetterHeader.omittedBytes, string: "\(omitted)")],
            items: letter.items, kind: letter.kind, position: letter.position)
    }

    /// `letter` keyed by its original record's position (`topic/partition/offset`), for a
    /// dead-letter topic that takes no record without a key (a compacted one refuses it as
    /// `INVALID_RECORD`): only a letter without a key is given one. Positions are unique, so no
    /// two such letters share a key that compaction would fold; a replay reads such a key as no
    /// key (`replay(batch:)`).
    static func keyedByPosition(_ letter: Publication.DeadLetterRecord) -> Publication.DeadLetterRecord {
        guard letter.key == nil else { return letter }
        var keyed = letter
        keyed.key = Array(letter.position.description.utf8)
        return keyed
    }

    /// `letter` itself when it takes at most `maxBytes` bytes (`Publication.DeadLetterRecord.bytes`),
    /// else its `stub(of:)`.
    static func fitted(_ letter: Publication.DeadLetterRecord, maxBytes: Int) -> Publication.DeadLetterRecord {
        letter.bytes <= maxBytes ? letter : stub(of: letter)
    }

    /// The headers of a dead letter of the record at `partition`/`offset`, within
    /// `DeadLetterHeader.maxBytes` whatever they hold: the error cut to
    /// `DeadLetterHeader.maxErrorBytes` and the codes to `DeadLetterHeader.maxCodesBytes` at UTF-8
    /// boundaries, the id in its `RequestID.shortForm(_:)`.
    private static func headers(
        partition: KafkaTopicPartition, offset: Int64, requestID: String?, error message: String, attempts count: Int, codes resultCodes: [String] = [],
        kind deadLetterKind: Kind
    ) -> [KafkaHeader] {
        var headers = [
            KafkaHeader(key: DeadLetterHeader.originalTopic, string: partition.topic),
            KafkaHeader(key: DeadLetterHeader.originalPartition, string: "\(partition.partition)"),
            KafkaHeader(key: DeadLetterHeader.originalOffset, string: "\(offset)"),
            KafkaHeader(key: DeadLetterHeader.error, string: message.utf8Prefix(maxBytes: DeadLetterHeader.maxErrorBytes)),
            KafkaHeader(key: DeadLetterHeader.attempts, string: "\(count)"),
            KafkaHeader(key: DeadLetterHeader.kind, string: deadLetterKind.rawValue),
        ]
        if let requestID { headers.append(KafkaHeader(key: DeadLetterHeader.requestID, string: RequestID.shortForm(requestID))) }
        if !resultCodes.isEmpty { headers.append(KafkaHeader(key: DeadLetterHeader.codes, string: list(resultCodes))) }
        return headers
    }

    /// `codes` comma-separated, as many whole codes as fit in `DeadLetterHeader.maxCodesBytes`.
    private static func list(_ codes: [String]) -> String {
        var text = ""
        for code in codes {
            let next = text.isEmpty ? code : text + "," + code
            guard next.utf8.count <= DeadLetterHeader.maxCodesBytes else { break }
            text = next
        }
        return text
    }
}
