import Crypto
import Foundation
import InstanceAPI
import WireJSON

/// What a batch is: written by `iidbatch submit` and `iidbatch replay` to the compacted batch
/// topic (`BatchTopic`), keyed by the batch's name, once before its first request record
/// (`submitting`) and once after its last was acknowledged (`submitted`).
///
/// Wire format (JSON, members in sorted order): `{"createdAt": "2026-11-25T20:40:12.000Z",
/// "createdBy": "alice", "inputSha256": "9f…", "items": 12000, "name": "gdpr-7", "op":
/// "installations.delete", "pipeline": "deletions", "requestTopics": ["deletions"], "requests": 120,
/// "state": "submitted", "idPrefix": "id-9f86d081884c7d65"}`. `op` is absent when a replay mixes
/// ops; `pipeline` when no pipeline file names the request topic (and `--pipeline` was not given)
/// or a replay spans several; `idPrefix` for a replay (and in manifests written before it was);
/// `skippedLines` unless submit skipped bad lines of its input.
public struct BatchManifest: Sendable, Hashable {
    /// How far its producer got.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// The manifest was written; its request records are being produced.
        case submitting
        /// Every request record was acknowledged by the cluster.
        case submitted
    }

    /// The batch's name (`BatchName`): the record key, and the `batch` of its requests and outcomes.
    public var name: String
    /// The op of every request, nil when a replay mixes ops.
    public var op: RequestOp?
    /// The pipeline whose workers take its requests, when one is known: cancels and pauses are per
    /// pipeline.
    public var pipeline: String?
    /// The topics its request records went to.
    public var requestTopics: [String]
    /// Request records produced (or, while `submitting`, to be produced).
    public var requests: Int
    /// Items in them.
    public var items: Int
    /// Who submitted it.
    public var createdBy: String
    /// When the manifest was first written: no record of the batch is older.
    public var createdAt: Date
    /// Lowercase hex SHA-256 of the input (`inputDigest`).
    public var inputSHA256: String
    /// How far its producer got.
    public var state: State
    /// For a batch `iidbatch submit` made: its requests' ids are `<idPrefix>-<n>`
    /// (`SubmitPlan.id(prefix:number:)`), n from 1 to `requests`. Nil for a replay, whose records
    /// keep their originals' ids.
    public var idPrefix: String?
    /// Lines of the input `iidbatch submit` skipped as bad (without `--strict`): their items are
    /// in no request of the batch, though `inputSHA256` covers them. Nil for none.
    public var skippedLines: Int?

    /// A manifest.
    public init(
        name: String, op: RequestOp?, pipeline: String?, requestTopics: [String], requests: Int, items: Int, createdBy: String, createdAt: Date,
        inputSHA256: String, state: State, idPrefix: String? = nil, skippedLines: Int? = nil
    ) {
        self.name = name
        self.op = op
        self.pipeline = pipeline
        self.requestTopics = requestTopics
        self.requests = requests
        self.items = items
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.inputSHA256 = inputSHA256
        self.state = state
        self.idPrefix = idPrefix
        self.skippedLines = skippedLines.flatMap { $0 > 0 ? $0 : nil }
    }

    /// How much earlier than `createdAt` a reader of the batch's outcomes starts: the clocks of
    /// the submitting host and the workers (whose producers time the outcome records) may disagree.
    public static let clockAllowance: TimeInterval = 60

    /// Whether `outcome` can be the outcome of one of the batch's own requests: it names the
    /// batch; its id, when the manifest names `idPrefix`, is one submit gave (`<idPrefix>-<n>`, n
    /// from 1 to `requests`); and it is not a rejection keyed by a record position
    /// (`RecordPosition`), which is how a worker names a record without an id of its own:
    /// `iidbatch submit` and `iidbatch replay` give every record an id, so such a record is not
    /// one of theirs, whatever `batch` it names. (An outcome that called the backend had a
    /// request with an id, whatever its form.)
    public func mayOwn(_ outcome: Outcome) -> Bool {
        guard outcome.batch == name else { return false }
        if let idPrefix {
            guard let number = SubmitPlan.number(of: outcome.requestID, prefix: idPrefix), number <= requests else { return false }
        }
        return !(outcome.status == .rejected && RecordPosition(parsing: outcome.requestID) != nil)
    }

    /// The record time from which the batch's outcomes are read: `createdAt` less `clockAllowance`.
    public var outcomesSince: Date { createdAt.addingTimeInterval(-Self.clockAllowance) }

    /// The wire name of each member: the one place it is written, for `parse` and `jsonBytes()`.
    package enum Field: String, CodingKey, CaseIterable {
        case name, op, pipeline, requestTopics, requests, items, createdBy, createdAt
        case inputSHA256 = "inputSha256"
        case state, idPrefix, skippedLines
    }

    /// The members a manifest holds; any other is refused.
    package static let members = Set(Field.allCases.map(\.rawValue))

    /// The lowercase hex SHA-256 of `bytes`: a submit's input file as read, a replay's produced
    /// record values each followed by a newline.
    public static func inputDigest(_ bytes: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(data: Array(bytes))
        return NumberText.hex(hash.finalize())
    }

    /// Reads a record's value strictly: a JSON object of the known members, each present (but
    /// `op`, `pipeline`, `idPrefix` and `skippedLines`) and typed, the name a `BatchName`.
    ///
    /// - Throws: `BatchManifestError` naming the field at fault.
    public static func parse(_ bytes: [UInt8]) throws(BatchManifestError) -> BatchManifest {
        let document: JSONValue
        do { document = try JSONValue.parse(bytes: bytes) } catch { throw BatchManifestError(field: nil, "\(error)") }
        guard case .object(let fields) = document else { throw BatchManifestError(field: nil, "must be a JSON object") }
        if let unknown = fields.keys.sorted().first(where: { !members.contains($0) }) {
            throw BatchManifestError(field: unknown, "is not a member of a manifest (\(members.sorted().joined(separator: ", ")))")
        }
        func refused(_ field: Field, _ reason: String) -> BatchManifestError { BatchManifestError(field: field.rawValue, reason) }
        func text(_ field: Field) throws(BatchManifestError) -> String {
            guard let text = document[field]?.stringValue, !text.isEmpty else { throw refused(field, "must be a non-empty string") }
            return text
        }
        func count(_ field: Field) throws(BatchManifestError) -> Int {
            guard case .number(let number)? = document[field], number >= 0, number == number.rounded(), number < 1e15 else {
                throw refused(field, "must be an integer of 0 or more")
            }
            return Int(number)
        }
        let name = try text(.name)
        if let problem = BatchName.problem(with: name) { throw refused(.name, "'\(name)' \(problem)") }
        var op: RequestOp?
        if document[Field.op] != nil {
            let raw = try text(.op)
            guard let known = RequestOp(rawValue: raw) else { throw refused(.op, "'\(raw)' is not one of \(RequestOp.names)") }
            op = known
        }
        let pipeline = document[Field.pipeline] == nil ? nil : try text(.pipeline)
        let idPrefix = document[Field.idPrefix] == nil ? nil : try text(.idPrefix)
        guard case .array(let topicValues)? = document[Field.requestTopics] else {
            throw refused(.requestTopics, "must be an array of topic names")
        }
        var requestTopics: [String] = []
        for value in topicValues {
            guard let topic = value.stringValue, !topic.isEmpty else { throw refused(.requestTopics, "must hold non-empty strings") }
            requestTopics.append(topic)
        }
        let createdAt = try text(.createdAt)
        guard let created = WireDate.parse(createdAt) else { throw refused(.createdAt, "'\(createdAt)' is not an ISO 8601 time") }
        let digest = try text(.inputSHA256)
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw refused(.inputSHA256, "must be 64 lowercase hex digits")
        }
        let stateText = try text(.state)
        guard let state = State(rawValue: stateText) else {
            throw refused(.state, "'\(stateText)' is not one of \(State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return BatchManifest(
            name: name, op: op, pipeline: pipeline, requestTopics: requestTopics, requests: try count(.requests), items: try count(.items),
            createdBy: try text(.createdBy), createdAt: created, inputSHA256: digest, state: state, idPrefix: idPrefix,
            skippedLines: document[Field.skippedLines] == nil ? nil : try count(.skippedLines))
    }

    /// The record's value, as `parse` reads it back.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key(Field.createdAt)
        writer.plainString(WireDate.bytes(createdAt))
        writer.member(Field.createdBy, createdBy)
        if let idPrefix { writer.member(Field.idPrefix, idPrefix) }
        writer.member(Field.inputSHA256, inputSHA256)
        writer.member(Field.items, items)
        writer.member(Field.name, name)
        if let op { writer.member(Field.op, op.rawValue) }
        if let pipeline { writer.member(Field.pipeline, pipeline) }
        writer.key(Field.requestTopics)
        writer.strings(requestTopics)
        writer.member(Field.requests, requests)
        if let skippedLines { writer.member(Field.skippedLines, skippedLines) }
        writer.member(Field.state, state.rawValue)
        writer.endObject()
        return writer.bytes
    }
}
