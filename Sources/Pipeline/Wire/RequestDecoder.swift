import Foundation
import InstanceAPI
import WireJSON

/// Reads request records strictly: anything that is not a valid request is rejected with a reason
/// that names the field and the offending value. It never traps, whatever the bytes.
///
/// Guarantees: an `id` or `replayOf` past `RequestID.maxBytes` bytes is rejected, naming the field
/// and its length; one within it but not in Unicode normalization form C
/// (`RequestID.isNormalized(_:)`) is rejected, and the rejection's `requestID` and `replayOf` are
/// neither it nor the record's `replayOf` (its outcome is keyed by the record's position, as a
/// record without an id; its reason quotes the id, cut); a member its op does not have (`RequestOp.members`) is rejected, naming it;
/// values are quoted in reasons cut by bytes (`RequestRejection.quote(_:mark:)`), so no rejection
/// carries more than a few kilobytes of the record; a rejected record's non-empty string `subject`
/// is kept in the rejection's target (cut), whatever else is wrong with it, for erasure reports:
/// of a record too large to read or not JSON, the one its bytes seem to name (`scannedSubject`).
public struct RequestDecoder: Sendable {
    /// Records larger than this are rejected unread.
    public var maxRecordBytes: Int
    /// Requests with more items than this are rejected.
    public var maxItems: Int
    /// Requests whose outcome could be larger than this (`OutcomeSizeBound`) are rejected.
    public var maxOutcomeBytes: Int
    /// The ops accepted (nil: any); a request of another op is rejected naming the pipeline's.
    public var acceptedOps: Set<RequestOp>?

    /// A decoder with limits.
    public init(maxRecordBytes: Int = 1 << 20, maxItems: Int = 100_000, maxOutcomeBytes: Int = 1_000_000) {
        self.maxRecordBytes = maxRecordBytes
        self.maxItems = maxItems
        self.maxOutcomeBytes = maxOutcomeBytes
    }

    /// A decoder that judges no size (record bytes, items, outcome bytes): what reads a dead
    /// letter, which a worker with its own limits wrote; the worker its replay reaches judges it.
    public static let unlimited = RequestDecoder(maxRecordBytes: .max, maxItems: .max, maxOutcomeBytes: .max)

    /// A decoder with `configuration`'s limits.
    public init(configuration: PipelineConfiguration) {
        self.init(maxRecordBytes: configuration.maxRecordBytes, maxOutcomeBytes: configuration.maxOutcomeBytes)
        acceptedOps = configuration.ops
    }

    /// The decoder of the worker reading request topic `topic`: that of the first of `pipelines`
    /// whose request topic it is, so a record reads here as that worker read it (one it rejected
    /// for its size is rejected here too); the default limits for a topic none of them reads.
    public init(readingTopic topic: String, of pipelines: [PipelineConfiguration]) {
        if let pipeline = pipelines.first(where: { $0.requestTopic == topic }) { self.init(configuration: pipeline) } else { self.init() }
    }

    /// Decodes one record's value.
    public func decode(_ bytes: [UInt8]) -> Result<PipelineRequest, RequestRejection> {
        guard bytes.count <= maxRecordBytes else {
            return .failure(
                RequestRejection(
                    field: nil, reason: "record of \(bytes.count) bytes exceeds the limit of \(maxRecordBytes) bytes", target: Self.scannedTarget(bytes)))
        }
        let parsed: [String: JSONMember]?
        do { parsed = try JSONValue.parseMembers(bytes: bytes) } catch {
            return .failure(RequestRejection(field: nil, reason: "malformed JSON: \(error)", target: Self.scannedTarget(bytes)))
        }
        guard let document = parsed else {
            return .failure(RequestRejection(field: nil, reason: "a request must be a JSON object"))
        }
        var fields = Fields(document: document, recordBytes: bytes.count)
        do { return .success(try decode(&fields)) } catch {
            return .failure(
                RequestRejection(
                    field: error.field, reason: error.reason, requestID: fields.id,
                    op: document[Field.op.rawValue]?.value.stringValue.flatMap(RequestOp.init(rawValue:)),
                    replayOf: document[Field.replayOf.rawValue]?.value.stringValue.flatMap {
                        // An over-long one is named by its short form (its SHA-256) and not normalized.
                        $0.utf8.count > RequestID.maxBytes || RequestID.isNormalized($0) ? $0 : nil
                    },
                    batch: document[Field.batch.rawValue]?.value.stringValue,
                    target: document[Field.subject.rawValue]?.value.stringValue.flatMap { $0.isEmpty ? nil : [Field.subject.rawValue: $0] } ?? [:]))
        }
    }

    private func decode(_ fields: inout Fields) throws(RequestRejection) -> PipelineRequest {
        let id = try fields.requiredString(.id)
        // Its size first: an over-long id is named by its short form, and no more than
        // `RequestID.maxBytes` bytes are ever normalized (Foundation's normalization is quadratic
        // in a run of combining marks, and the worker's actor decodes).
        if id.utf8.count <= RequestID.maxBytes { try Fields.checkIDForm(id, field: .id) }
        fields.id = id
        try Fields.checkIDBytes(id, field: .id)
        let opName = try fields.requiredString(.op)
        guard let op = RequestOp(rawValue: opName) else {
            throw RequestRejection(field: Field.op.rawValue, reason: "unknown op \(RequestRejection.quote(opName)); expected one of \(RequestOp.names)")
        }
        if let acceptedOps, !acceptedOps.contains(op) {
            throw RequestRejection(
                field: Field.op.rawValue,
                reason:
                    "'\(op.rawValue)' is not taken by this pipeline (ops: \(acceptedOps.map(\.rawValue).sorted().joined(separator: ", "))); send it to the request topic of the pipeline that lists it"
            )
        }
        let items = try fields.items(op.itemsField, limit: maxItems)
        if let limit = op.requestItemLimit, items.count > limit {
            throw RequestRejection(field: op.itemsField.rawValue, reason: "a device group holds at most \(limit) members, got \(items.count)")
        }
        let target: RequestTarget
        switch op {
        case .installationsDelete:
            target = .subject(try fields.optionalString(.subject))
        case .topicsSubscribe, .topicsUnsubscribe:
            let topic = try fields.requiredString(.topic)
            do { target = .topic(try APILimits.topicName(topic)) } catch {
                throw RequestRejection(
                    field: Field.topic.rawValue, reason: "\(RequestRejection.quote(topic)) is not a topic name: it must match \(APILimits.topicNameRule)")
            }
        case .apnsImport:
            let application = try fields.requiredString(.application)
            guard let sandbox = try fields.optionalBool(.sandbox) else {
                throw RequestRejection(field: Field.sandbox.rawValue, reason: "is required: true for the APNs sandbox, false for production")
            }
            target = .apns(application: application, sandbox: sandbox)
        case .groupsCreate, .groupsAdd, .groupsRemove:
            let name = try fields.requiredString(.notificationKeyName)
            let key = try fields.optionalString(.notificationKey)
            target = .group(name: name, key: key)
        case .instancesInfo:
            target = .info(details: try fields.optionalBool(.details) ?? false)
        case .groupsExport:
            // By bytes: `==` would take `notification\u{212A}ey` (a Kelvin sign) for
            // `notificationKey`, which other readers and the schema refuse.
            switch ExactText(try fields.optionalString(.groupsBy) ?? RequestTarget.groupsByName) {
            case ExactText(RequestTarget.groupsByName): target = .export(byKey: false)
            case ExactText(RequestTarget.groupsByKey): target = .export(byKey: true)
            case let other:
                throw RequestRejection(
                    field: Field.groupsBy.rawValue,
                    reason: "\(RequestRejection.quote(other.text)) is not \(RequestTarget.groupsByName) (the default) or \(RequestTarget.groupsByKey)")
            }
        }
        let replayOf = try fields.optionalString(.replayOf)
        if let replayOf {
            try Fields.checkIDBytes(replayOf, field: .replayOf)
            try Fields.checkIDForm(replayOf, field: .replayOf)
        }
        let priorAttempts = try fields.optionalCount(.priorAttempts) ?? 0
        let batch = try fields.optionalString(.batch)
        if let batch, let problem = BatchName.problem(with: batch) {
            throw RequestRejection(field: Field.batch.rawValue, reason: "\(RequestRejection.quote(batch)) \(problem)")
        }
        try fields.checkMembers(of: op)
        let request = PipelineRequest(id: id, op: op, target: target, items: items, replayOf: replayOf, priorAttempts: priorAttempts, batch: batch)
        if request.keysOutcomeByItem { try Fields.checkDistinctTexts(items, field: op.itemsField.rawValue) }
        // Most requests are far below the limit by their record's size alone: their items are
        // read one by one only when that bound is over it.
        guard OutcomeSizeBound.bytes(of: request, recordBytes: fields.recordBytes) > maxOutcomeBytes else { return request }
        let bound = OutcomeSizeBound.bytes(of: request)
        guard bound <= maxOutcomeBytes else {
            let fitting = max(1, items.count * maxOutcomeBytes / bound)
            throw RequestRejection(
                field: op.itemsField.rawValue,
                reason:
                    "\(items.count) items could make an outcome of up to \(bound) bytes, over the limit of \(maxOutcomeBytes) (max-outcome-bytes); send at most about \(fitting) per request"
            )
        }
        return request
    }

    private typealias Field = PipelineRequest.Field

    /// Typed access to a request's fields, each failure naming its field.
    private struct Fields {
        let document: [String: JSONMember]
        /// The size of the record it was read from.
        let recordBytes: Int
        var id: String?

        func requiredString(_ field: Field) throws(RequestRejection) -> String {
            let name = field.rawValue
            guard let value = document[name]?.value else { throw RequestRejection(field: name, reason: "is required") }
            guard let text = value.stringValue, !text.isEmpty else {
                throw RequestRejection(field: name, reason: "must be a non-empty string, got \(RequestRejection.show(value))")
            }
            return text
        }

        /// Refuses an id (`id`, `replayOf`) past `RequestID.maxBytes`, naming `field` and the length.
        static func checkIDBytes(_ id: String, field: Field) throws(RequestRejection) {
            let bytes = id.utf8.count
            guard bytes > RequestID.maxBytes else { return }
            throw RequestRejection(
                field: field.rawValue,
                reason:
                    "has \(bytes) bytes, more than the limit of \(RequestID.maxBytes); it is named by its first \(RequestID.keptBytes) bytes and its SHA-256 (\(RequestID.shortForm(id)))"
            )
        }

        /// Refuses an id (`id`, `replayOf`) not in Unicode normalization form C, naming `field`.
        static func checkIDForm(_ id: String, field: Field) throws(RequestRejection) {
            guard !RequestID.isNormalized(id) else { return }
            throw RequestRejection(
                field: field.rawValue,
                reason:
                    "\(RequestRejection.quote(id)) is not in Unicode normalization form C (NFC): an id of other bytes reads as the same characters, and the operator's tools would take one's outcome for the other's; send its NFC form"
            )
        }

        /// Refuses two items that are one text under Unicode canonical equivalence in other bytes
        /// (`café` composed and decomposed): two ids to the backend, but one key of an outcome's
        /// per-item lists (`groupMembers`, `topics`, `imports`) to Swift and many JSON readers,
        /// where one item's list would stand for the other's. Items of the same bytes are one
        /// item asked twice, as before. Only lists with a non-ASCII byte are looked at.
        static func checkDistinctTexts(_ items: PackedStrings, field: String) throws(RequestRejection) {
            guard items.indices.contains(where: { items.bytes($0).contains { $0 >= 0x80 } }) else { return }
            var first: [String: Int] = [:]
            for index in items.indices {
                let text = items[index]
                guard let earlier = first[text] else {
                    first[text] = index
                    continue
                }
                guard items.bytes(earlier).elementsEqual(items.bytes(index)) else {
                    throw RequestRejection(
                        field: "\(field)[\(index)]",
                        reason:
                            "is \(field)[\(earlier)] under Unicode canonical equivalence in other bytes: outcome readers would take one's results for the other's; send them in separate requests"
                    )
                }
            }
        }

        /// Refuses a member `op`'s requests do not have, naming the first (in sorted order). Names
        /// are compared by their bytes: Swift's `String` equality would take a name canonically
        /// equivalent to a member's (`notification\u{212A}eyName`, a Kelvin sign) for it, where
        /// every other JSON reader and the shipped schema see an unknown member.
        func checkMembers(of op: RequestOp) throws(RequestRejection) {
            let allowed = Set(op.members.map { ExactText($0) })
            guard document.keys.contains(where: { !allowed.contains(ExactText($0)) }) else { return }
            let unknown = document.keys.filter { !allowed.contains(ExactText($0)) }.sorted()
            guard let first = unknown.first else { return }
            let more = unknown.count > 1 ? " (and \(unknown.count - 1) more unknown members)" : ""
            throw RequestRejection(
                field: RequestRejection.quote(first, mark: ""),
                reason: "is not a member of \(op.rawValue) requests, which have: \(op.members.sorted().joined(separator: ", "))\(more)")
        }

        func optionalString(_ field: Field) throws(RequestRejection) -> String? {
            let name = field.rawValue
            guard let value = document[name]?.value, value != .null else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw RequestRejection(field: name, reason: "must be a non-empty string when present, got \(RequestRejection.show(value))")
            }
            return text
        }

        func optionalBool(_ field: Field) throws(RequestRejection) -> Bool? {
            let name = field.rawValue
            guard let value = document[name]?.value, value != .null else { return nil }
            guard let flag = value.boolValue else { throw RequestRejection(field: name, reason: "must be true or false, got \(RequestRejection.show(value))") }
            return flag
        }

        func optionalCount(_ field: Field) throws(RequestRejection) -> Int? {
            let name = field.rawValue
            guard let value = document[name]?.value, value != .null else { return nil }
            guard case .number(let number) = value, number >= 0, number == number.rounded(), number <= Double(PipelineRequest.maxPriorAttempts) else {
                throw RequestRejection(field: name, reason: "must be a non-negative integer, got \(RequestRejection.show(value))")
            }
            return Int(number)
        }

        func items(_ field: Field, limit: Int) throws(RequestRejection) -> PackedStrings {
            let name = field.rawValue
            guard let member = document[name] else { throw RequestRejection(field: name, reason: "is required") }
            let count: Int
            switch member {
            case .strings(let items): count = items.count
            case .value(let value):
                guard let elements = value.arrayValue else {
                    throw RequestRejection(field: name, reason: "must be an array of strings, got \(RequestRejection.show(value))")
                }
                count = elements.count
            }
            guard count > 0 else { throw RequestRejection(field: name, reason: "must not be empty") }
            guard count <= limit else { throw RequestRejection(field: name, reason: "holds \(count) items, more than the limit of \(limit)") }
            switch member {
            case .strings(let items):
                if let index = items.indices.first(where: { items.byteCount($0) == 0 }) {
                    throw RequestRejection(field: "\(name)[\(index)]", reason: "must be a non-empty string, got \(RequestRejection.show(.string("")))")
                }
                return items
            case .value(let value):
                // Not every element is a string: name the first that is not a non-empty one.
                let elements = value.arrayValue ?? []
                let index = elements.firstIndex { ($0.stringValue ?? "").isEmpty } ?? 0
                throw RequestRejection(field: "\(name)[\(index)]", reason: "must be a non-empty string, got \(RequestRejection.show(elements[index]))")
            }
        }

    }
}
