import Crypto
import Foundation
import InstanceAPI
import Kafka
import WireJSON

/// One document for a batch, for an auditor: per request its status, per item its final code and
/// time, totals, the cancels that name the batch, and the SHA-256 of the outcome records it was
/// built from, so it can be checked later against the outcome topic. A pure value built from what
/// the command read.
///
/// Rules:
/// - A request with several outcomes (a redelivery repeats one) is reported by the last, by
///   topic, partition and offset, that shows a call: a `rejected` or `cancelled` one (which
///   called nothing in its delivery) never replaces one that called, as in `Reconciliation`.
///   Every one of them is hashed.
/// - `installations.delete`: each item's code and time are its outcome's `receipt` line. Other
///   ops: a failed item's code is its outcome's `failedItems` entry; every other item of the
///   request record the outcome is of gets the outcome's one success code (`OK`) and the
///   outcome's `completedAt`.
///   Items of a rejected request have no code; a cancelled request's end `CANCELLED`. When the
///   outcome's lists cannot say each item's code (its item lists were left out as too large, or
///   it counts two success codes without a `receipt`), the items it does not list have no code
///   and `itemsComplete` is false.
/// - A request with no outcome yet is `pending`, its items without code or time (a rejection of a
///   duplicate of it in flight, `Outcome.duplicateOf`, is no outcome of it); so is each id a
///   submit's manifest names (`idPrefix`, 1 to `requests`) of which nothing was read; an outcome
///   whose request record was not read lists only its failed items (`itemsComplete` false).
/// - The record an outcome is of is known when, of the batch's distinct records of its id (op,
///   target and items by their bytes), it fits one only (`Outcome.fits`: the target, the item
///   count, each failed item at its index). When it fits none, or several, its items are not
///   known: it is reported as if its record was not read. A request without an outcome lists the
///   items of its records when they are one record, else none (`itemsComplete` false).
/// - Every other distinct record of the id is listed after the reported one: with the codes of the
///   last outcome that is of it (not a duplicate's rejection; one that called never replaced by a
///   cancelled redelivery), the request's status then of each item's latest line; or, when no
///   outcome is of it (the second of two replayed dead letters, rejected as a duplicate in flight;
///   a record forged with the id and the batch's name), its items without a code, `itemsComplete`
///   false, and the request `pending` when its reported outcome called (a cancelled or rejected
///   one keeps its status). No outcome of one record stands for another's items, and no later
///   record's success hides an earlier one's failure. An id with more distinct records times
///   outcomes than `mostFits` lists its other records as having no outcome.
/// - `outcomesSha256` is the lowercase hex SHA-256 of `hashedBytes` of each outcome record of the
///   batch whose timestamp is at or after the manifest's `outcomesSince` (a record without one
///   counts), in topic (bytewise), partition and offset order: the records the receipt is built
///   from, and the rule an auditor applies to the topic to check it.
public struct BatchReceipt: Sendable {
    /// One item's line.
    public struct Item: Sendable, Hashable {
        /// Its position in the request's item list.
        public var index: Int
        /// The item.
        public var item: String
        /// Its final code (`CANCELLED` for a cancelled request), nil when it has none (pending, rejected).
        public var code: String?
        /// When it became final.
        public var at: Date?

        /// An item's line.
        public init(index: Int, item: String, code: String?, at: Date?) {
            self.index = index
            self.item = item
            self.code = code
            self.at = at
        }
    }

    /// One request's part.
    public struct Request: Sendable, Hashable {
        /// Its id.
        public var id: String
        /// Its outcome's status, `pending`, or over several records of its id the status of each
        /// item's latest line.
        public var status: String
        /// Where its reported outcome sits (`topic/partition/offset`).
        public var outcome: String?
        /// Outcome records read for it.
        public var outcomes: Int
        /// When its outcome completed.
        public var completedAt: Date?
        /// Its items, by index in their record: the reported outcome's record's, then the id's
        /// other records' (an item may have a line per record).
        public var items: [Item]
        /// False when only the failed items are known (its request record was not read, or which
        /// of its records the outcome is of is not known).
        public var itemsComplete: Bool
    }

    /// The status of a request without an outcome.
    public static let pending = "pending"

    /// The most requests a manifest may name for its ids to be listed without a record read: a
    /// forged manifest must not make a receipt of a hundred million lines (`unlistedIDs` says
    /// when a larger one left some out).
    static let mostListedIDs = 1_000_000

    /// The batch.
    public let manifest: BatchManifest
    /// Its requests, by id.
    public let requests: [Request]
    /// The cancels that can have matched its requests: those naming the batch (in any pipeline),
    /// and those of its pipeline naming one of its request ids, or neither (a bound only, after
    /// the batch was made).
    public let cancels: [ControlCancel]
    /// Outcome records of the batch read.
    public let outcomeRecords: Int
    /// The lowercase hex SHA-256 of the outcome records (see the rules).
    public let outcomesSHA256: String
    /// True when the manifest names more requests than `mostListedIDs` and some were neither
    /// read nor listed: the receipt does not show every request as pending (say so).
    public let unlistedIDs: Bool

    /// The bytes of `record` that the digest covers: the text `<topic> <partition> <offset>
    /// <value length>` and a newline, then the value's bytes and a newline (as kcat prints with
    /// `-f '%t %p %o %S\n%s\n'`).
    public static func hashedBytes(of record: KafkaRecord) -> [UInt8] {
        let value = record.value ?? []
        return Array("\(record.topic) \(record.partition) \(record.offset) \(value.count)\n".utf8) + value + [UInt8(ascii: "\n")]
    }

    /// The receipt of `manifest`'s batch from its outcome records (each with its decoded outcome;
    /// records of other batches are left out), its request records and its pipeline's cancels.
    public init(manifest: BatchManifest, outcomes: [(record: KafkaRecord, outcome: Outcome)], requests: [PipelineRequest], cancels: [ControlCancel]) {
        self.manifest = manifest
        let since = manifest.outcomesSince
        let ordered = outcomes.filter { $0.outcome.batch == manifest.name && ($0.record.timestamp.map { $0 >= since } ?? true) }.sorted { a, b in
            guard a.record.topic == b.record.topic else { return a.record.topic.utf8.lexicographicallyPrecedes(b.record.topic.utf8) }
            return (a.record.partition, a.record.offset) < (b.record.partition, b.record.offset)
        }
        var hash = SHA256()
        var latest: [String: (record: KafkaRecord, outcome: Outcome)] = [:]
        var seen: [String: Int] = [:]
        var answers: [String: [Outcome]] = [:]
        for entry in ordered {
            hash.update(data: Self.hashedBytes(of: entry.record))
            let id = entry.outcome.requestID
            if entry.outcome.duplicateOf == nil, entry.outcome.status != .rejected { answers[id, default: []].append(entry.outcome) }
            if entry.outcome.duplicateOf != nil {
                // A duplicate of a request in flight says nothing of how that request ends.
            } else if let kept = latest[id], kept.outcome.status.called, !entry.outcome.status.called {
                // A redelivery cancelled or rejected after a delivery that called: what happened stays.
            } else {
                latest[id] = entry
            }
            seen[id, default: 0] += 1
        }
        outcomeRecords = ordered.count
        outcomesSHA256 = NumberText.hex(hash.finalize())
        var records: [String: [PipelineRequest]] = [:]
        for request in requests where request.batch == manifest.name { records[request.id, default: []].append(request) }
        // A submit's batch names its ids (`<idPrefix>-1` to `-<requests>`): one with neither a
        // record nor an outcome read (a submit that died halfway, records not read yet) is listed
        // pending too, so that a receipt never looks complete for want of a line.
        var ids = Set(records.keys).union(seen.keys)
        if let prefix = manifest.idPrefix, manifest.requests <= Self.mostListedIDs {
            for number in stride(from: 1, through: manifest.requests, by: 1) { ids.insert(SubmitPlan.id(prefix: prefix, number: number)) }
        }
        unlistedIDs = manifest.idPrefix != nil && manifest.requests > Self.mostListedIDs && ids.count < manifest.requests
        self.requests = ids.sorted().map { id in
            Self.request(id, records[id] ?? [], latest[id], answers: answers[id] ?? [], outcomes: seen[id] ?? 0)
        }
        // A cancel bounded in time only, before the batch was made, matched none of it.
        self.cancels = cancels.filter { cancel in
            cancel.batch.map { $0 == manifest.name } ?? cancel.requestID.map(ids.contains) ?? cancel.producedBefore.map { $0 > manifest.createdAt } ?? true
        }.sorted { ($0.version, $0.tag) < ($1.version, $1.tag) }
    }

    /// Requests by status.
    public var requestsByStatus: [String: Int] { requests.reduce(into: [:]) { $0[$1.status, default: 0] += 1 } }

    /// Items listed by code (`none` for items without one).
    public var itemsByCode: [String: Int] {
        requests.reduce(into: [:]) { counts, request in for item in request.items { counts[item.code ?? "none", default: 0] += 1 } }
    }

    /// The JSON document.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 1_024 + requests.count * 256)
        writer.beginObject()
        writer.member("batch", manifest.name)
        writer.key("cancels")
        writer.objects(cancels) { writer, cancel in
            writer.key("at")
            writer.plainString(WireDate.bytes(cancel.updatedAt))
            if let batch = cancel.batch { writer.member("batch", batch) }
            writer.member("by", cancel.updatedBy)
            if let producedBefore = cancel.producedBefore {
                writer.key("producedBefore")
                writer.plainString(WireDate.bytes(producedBefore))
            }
            writer.member("reason", cancel.reason)
            if let requestID = cancel.requestID { writer.member("requestId", requestID) }
            writer.member("version", cancel.version)
        }
        writer.key("manifest")
        writer.value(json: manifest.jsonBytes())
        writer.member("outcomeRecords", outcomeRecords)
        writer.member("outcomesSha256", outcomesSHA256)
        writer.member(
            "outcomesSha256Covers",
            "each outcome record of the batch with a timestamp at or after outcomesSince, in topic, partition and offset order: '<topic> <partition> <offset> <value length>\\n<value>\\n'"
        )
        writer.key("outcomesSince")
        writer.plainString(WireDate.bytes(manifest.outcomesSince))
        writer.key("requests")
        writer.objects(requests) { writer, request in
            if let completedAt = request.completedAt {
                writer.key("completedAt")
                writer.plainString(WireDate.bytes(completedAt))
            }
            writer.member("id", request.id)
            writer.key("items")
            writer.objects(request.items) { writer, item in
                if let at = item.at {
                    writer.key("at")
                    writer.plainString(WireDate.bytes(at))
                }
                if let code = item.code { writer.member("code", code) }
                writer.member("index", item.index)
                writer.member("item", item.item)
            }
            writer.member("itemsComplete", request.itemsComplete)
            if let outcome = request.outcome { writer.member("outcome", outcome) }
            writer.member("outcomes", request.outcomes)
            writer.member("status", request.status)
        }
        writer.key("totals")
        writer.beginObject()
        writer.key("items")
        writer.members(itemsByCode) { $0.int($1) }
        writer.member("itemsListed", requests.reduce(0) { $0 + $1.items.count })
        writer.key("requests")
        writer.members(requestsByStatus) { $0.int($1) }
        writer.member("requestsListed", requests.count)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The CSV header.
    public static let csvHeader = ["batch", "request_id", "request_status", "index", "item", "code", "at"]

    /// One row per item, after a header row; fields quoted as RFC 4180 says, lines ended by CRLF.
    public func csv() -> String {
        var lines = [Self.csvHeader.joined(separator: ",")]
        for request in requests {
            for item in request.items {
                lines.append(
                    [manifest.name, request.id, request.status, String(item.index), item.item, item.code ?? "", item.at.map(WireDate.text) ?? ""]
                        .map(Self.csvField).joined(separator: ","))
            }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// `field` as RFC 4180 writes it: in double quotes, its quotes doubled, when it holds a comma,
    /// a quote, a CR or an LF. Looked for by UTF-8 byte, as a CSV reader splits: a quote with a
    /// combining mark after it is one Swift `Character`, yet a reader's quote (an item chosen so
    /// would open a quoted field that swallows the rows after it).
    public static func csvField(_ field: String) -> String {
        let quote = UInt8(ascii: "\"")
        guard field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == quote || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) else {
            return field
        }
        var bytes = [quote]
        for byte in field.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }
}
