import Foundation
import InstanceAPI

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
    /// Why a rejected record was rejected, naming the field.
    public var reason: String?
    /// For a replayed dead letter: the original request's id.
    public var replayOf: String?
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
        backendCalls: Int, receivedAt: Date, completedAt: Date
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
        self.backendCalls = backendCalls
        self.receivedAt = receivedAt
        self.completedAt = completedAt
    }

    enum CodingKeys: String, CodingKey {
        case requestID = "requestId"
        case op, target, status, counts, failedItems, imports, receipt, notificationKey, topics, topicsOmitted, groupMembers, reason, replayOf,
            backendCalls, receivedAt, completedAt
    }

    /// The wire form, within `limit` bytes when `OutcomeSizeBound` admitted the request: when the
    /// full outcome is larger, the parts the bound does not count are left out, first the failed
    /// items' messages (the backend's words), then the topic lists of `instances.info` (their
    /// registrations listed in `topicsOmitted`); codes, items and counts always stay.
    public func wireBytes(limit: Int) throws -> [UInt8] {
        let encoder = Self.encoder()
        let full = try encoder.encode(self)
        guard full.count > limit else { return Array(full) }
        var compact = self
        for index in compact.failedItems.indices { compact.failedItems[index].message = nil }
        let shorter = try encoder.encode(compact)
        guard shorter.count > limit, let topics = compact.topics, !topics.isEmpty else { return Array(shorter) }
        compact.topicsOmitted = topics.keys.sorted()
        compact.topics = [:]
        return Array(try encoder.encode(compact))
    }

    /// An encoder for the wire form: sorted keys, ISO 8601 dates with milliseconds.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }

    /// A decoder for the wire form.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }
}
