import Foundation
import InstanceAPI
import WireJSON

/// What became of one request: published once, when every item is final, keyed by the request id.
///
/// Wire format (JSON, documented by `pipelines/schemas/outcome.schema.json`).
public struct Outcome: Sendable, Hashable, Codable {
    /// The request's id (for a record without a readable id: its `RecordPosition`).
    public var requestID: String
    /// The request's op, or the `op` text of a rejected record when it had one.
    public var op: RequestOp?
    /// The request's target fields (`topic`, `subject`, `application`, …).
    public var target: [String: String]
    /// How it ended.
    public var status: OutcomeStatus
    /// Items by final code (`{"OK": 998, "NOT_FOUND": 2}`).
    public var counts: [String: Int]
    /// The items that did not succeed.
    public var failedItems: [FailedItem]
    /// For `apns.import`: APNs token → registration token, for every imported item.
    public var imports: [String: String]?
    /// For `installations.delete`: every installation's final code and time, in request order
    /// (the erasure receipt an auditor reads).
    public var receipt: [ItemReceipt]?
    /// For device-group ops: the group's notification key.
    public var notificationKey: String?
    /// For `instances.info` with `details`: each found registration's topics, sorted.
    public var topics: [String: [String]]?
    /// For `instances.info` with `details`: registrations whose topics were left out because the
    /// outcome would pass `max-outcome-bytes` (ask for them in smaller requests).
    public var topicsOmitted: [String]?
    /// For `groups.export`: each found group's members (also written to the export topic).
    public var groupMembers: [String: [String]]?
    /// Why a rejected record was rejected, naming the field; on any other outcome, why its item
    /// lists were left out (`withoutItemLists(because:)`).
    public var reason: String?
    /// For a replayed dead letter: the original request's id.
    public var replayOf: String?
    /// For a record rejected because a request of its id was in flight: that request's record
    /// (`requests/0/12`). Such an outcome says nothing of how that request ends (its own outcome
    /// does), so batch progress does not count it.
    public var duplicateOf: String?
    /// The request record this outcome answers, where the worker read it (`requests/0/12`); nil
    /// in outcomes of workers before 0.9.0. It tells apart the outcomes of records that share an
    /// id (a request's replays): a redelivered record's second outcome from another record's
    /// first.
    public var record: RecordPosition?
    /// The batch the request belongs to, when it named one.
    public var batch: String?
    /// Backend calls made for this request (a call shared with other requests counts for each).
    public var backendCalls: Int
    /// When the worker received the record.
    public var receivedAt: Date
    /// When its last item became final.
    public var completedAt: Date

    /// An outcome.
    public init(
        requestID: String, op: RequestOp?, target: [String: String], status: OutcomeStatus, counts: [String: Int],
        failedItems: [FailedItem], imports: [String: String]? = nil, receipt: [ItemReceipt]? = nil, notificationKey: String? = nil,
        topics: [String: [String]]? = nil, groupMembers: [String: [String]]? = nil, reason: String? = nil, replayOf: String? = nil,
        duplicateOf: String? = nil, record: RecordPosition? = nil, batch: String? = nil, backendCalls: Int, receivedAt: Date, completedAt: Date
    ) {
        self.requestID = requestID
        self.op = op
        self.target = target
        self.status = status
        self.counts = counts
        self.failedItems = failedItems
        self.imports = imports
        self.receipt = receipt
        self.notificationKey = notificationKey
        self.topics = topics
        self.groupMembers = groupMembers
        self.reason = reason
        self.replayOf = replayOf
        self.duplicateOf = duplicateOf
        self.record = record
        self.batch = batch
        self.backendCalls = backendCalls
        self.receivedAt = receivedAt
        self.completedAt = completedAt
    }

    /// The wire names, every one written by `jsonBytes()` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case requestID = "requestId"
        case op, target, status, counts, failedItems, imports, receipt, notificationKey, topics, topicsOmitted, groupMembers, reason, replayOf,
            duplicateOf, record, batch, backendCalls, receivedAt, completedAt
    }

    /// The wire form, within `limit` bytes when `OutcomeSizeBound` admitted the request: when the
    /// full outcome is larger, the parts the bound does not count are left out, first the failed
    /// items' messages (the backend's words), then the topic lists of `instances.info` (their
    /// registrations listed in `topicsOmitted`); codes, items and counts always stay.
    ///
    /// The bytes are those `encoder()` writes, produced directly with a `JSONWriter`.
    public func wireBytes(limit: Int) -> [UInt8] {
        let full = jsonBytes()
        guard full.count > limit else { return full }
        var compact = self
        for index in compact.failedItems.indices { compact.failedItems[index].message = nil }
        let shorter = compact.jsonBytes()
        guard shorter.count > limit, let topics = compact.topics, !topics.isEmpty else { return shorter }
        compact.topicsOmitted = topics.keys.sorted()
        compact.topics = [:]
        return compact.jsonBytes()
    }

    /// The `counts` key of a cancelled request's items (`OutcomeStatus.cancelled`): no backend
    /// call was made for them, so they have no result code.
    public static let cancelledItems = ResultCode.cancelled.rawValue

    /// The most bytes of each target value `withoutItemLists(because:)` keeps.
    public static let maxCompactTargetBytes = 256

    /// The outcome in its smallest form, for when the cluster refused it whole as too large (a
    /// topic whose `max.message.bytes` is below `max-outcome-bytes`): its counts, status and times
    /// stay; `failedItems` is empty and `imports`, `receipt`, `topics`, `topicsOmitted` and
    /// `groupMembers` are left out; target values are cut to `maxCompactTargetBytes` bytes, and a
    /// `notificationKey` longer than an answered key may be (`APILimits.answeredTokenBytes`) is
    /// left out; and
    /// `reason` says why, quoting `refusal`: a few hundred bytes, plus a count per distinct code.
    public func withoutItemLists(because refusal: String) -> Outcome {
        var compact = self
        compact.failedItems = []
        compact.imports = nil
        compact.receipt = nil
        compact.topics = nil
        compact.topicsOmitted = nil
        compact.groupMembers = nil
        compact.target = target.mapValues { $0.utf8Prefix(maxBytes: Self.maxCompactTargetBytes) }
        // A key is never cut (a cut key is another key): one longer than an answered key may be
        // (`APILimits.answeredTokenBytes`, the client's bound) is left out.
        if let key = notificationKey, key.utf8.count > APILimits.answeredTokenBytes { compact.notificationKey = nil }
        compact.reason =
            ("its item lists are left out: the whole outcome was refused as too large (\(refusal)); keep max-outcome-bytes below the outcome topic's max.message.bytes"
            + (reason.map { "; \($0)" } ?? "")).utf8Prefix(maxBytes: RequestRejection.maxReasonBytes)
        return compact
    }

    /// The JSON document, members in `.sortedKeys` order, optional members left out when nil;
    /// each name spelled by `CodingKeys`.
    private func jsonBytes() -> [UInt8] {
        typealias Key = CodingKeys
        var writer = JSONWriter(capacity: 512 + failedItems.count * 256 + (receipt?.count ?? 0) * 200)
        writer.beginObject()
        writer.member(Key.backendCalls, backendCalls)
        if let batch { writer.member(Key.batch, batch) }
        writer.key(Key.completedAt)
        writer.plainString(WireDate.bytes(completedAt))
        writer.key(Key.counts)
        writer.members(counts) { $0.int($1) }
        if let duplicateOf { writer.member(Key.duplicateOf, duplicateOf) }
        writer.key(Key.failedItems)
        writer.beginArray()
        for item in failedItems { item.write(to: &writer) }
        writer.endArray()
        if let groupMembers {
            writer.key(Key.groupMembers)
            writer.members(groupMembers) { $0.strings($1) }
        }
        if let imports {
            writer.key(Key.imports)
            writer.members(imports) { $0.string($1) }
        }
        if let notificationKey { writer.member(Key.notificationKey, notificationKey) }
        if let op { writer.member(Key.op, op.rawValue) }
        if let reason { writer.member(Key.reason, reason) }
        if let receipt {
            writer.key(Key.receipt)
            writer.beginArray()
            for line in receipt { line.write(to: &writer) }
            writer.endArray()
        }
        writer.key(Key.receivedAt)
        writer.plainString(WireDate.bytes(receivedAt))
        if let record { writer.member(Key.record, record.description) }
        if let replayOf { writer.member(Key.replayOf, replayOf) }
        writer.member(Key.requestID, requestID)
        writer.member(Key.status, status.rawValue)
        writer.key(Key.target)
        writer.members(target) { $0.string($1) }
        if let topics {
            writer.key(Key.topics)
            writer.members(topics) { $0.strings($1) }
        }
        if let topicsOmitted {
            writer.key(Key.topicsOmitted)
            writer.strings(topicsOmitted)
        }
        writer.endObject()
        return writer.bytes
    }

    /// An encoder for the wire form: sorted keys, `WireDate` times.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.text(date))
        }
        return encoder
    }

    /// A decoder for the wire form.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = WireDate.parse(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }
}
