import Foundation
import WireJSON

/// An operator's cancel of a pipeline's work: the requests it matches that have not started a
/// backend call end `cancelled`, never calling the backend. A record of the compacted control
/// topic of its own, keyed `<pipeline>/cancel/<unique>` (`recordKey`), so no later override or
/// cancel replaces it and it holds across restarts and rebalances; a tombstone of its key lifts it.
///
/// A request matches when, for each condition given, its `batch` is `batch`, its id is
/// `requestID`, and its record was produced before `producedBefore` (the Kafka record's
/// timestamp; a record without one counts as produced before any bound). Work produced after a
/// bound is never matched. A cancel without a bound matches whenever the record was produced: a
/// batch cancelled while its submit still runs, or from a host whose clock is behind the
/// producer's, stays cancelled whole. A cancel names at least one condition.
///
/// Wire format (JSON): `{"version": 2, "updatedAt": "…", "updatedBy": "alice", "reason": "wrong
/// list", "cancel": {"batch": "gdpr-7", "producedBefore": "2026-11-25T20:00:00.000Z"}}`.
public struct ControlCancel: Sendable, Hashable, CustomStringConvertible {
    /// What separates the pipeline from the cancel's own part in its record key: a pipeline's name
    /// is a file name, which holds no `/`, so no scope of an override has this form.
    public static let keyMarker = "/cancel/"

    /// The pipeline whose work it cancels.
    public var pipeline: String
    /// The batch it cancels (nil: any).
    public var batch: String?
    /// The request it cancels (nil: any).
    public var requestID: String?
    /// Only records produced before this time are cancelled (nil: whenever produced).
    public var producedBefore: Date?
    /// The pipeline's cancels counted so far, this one included.
    public var version: Int
    /// When it was written.
    public var updatedAt: Date
    /// Who wrote it.
    public var updatedBy: String
    /// Why.
    public var reason: String
    /// Its record key's own part (after `keyMarker`): unique per cancel.
    public var tag: String

    /// A cancel.
    public init(
        pipeline: String, batch: String?, requestID: String?, producedBefore: Date?, version: Int, updatedAt: Date, updatedBy: String, reason: String,
        tag: String
    ) {
        self.pipeline = pipeline
        self.batch = batch
        self.requestID = requestID
        self.producedBefore = producedBefore
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.reason = reason
        self.tag = tag
    }

    /// The key of its record in the control topic.
    public var recordKey: String { pipeline + Self.keyMarker + tag }

    /// Whether it cancels `request`, whose record was produced at `producedAt`.
    public func matches(_ request: PipelineRequest, producedAt: Date?) -> Bool {
        if let producedBefore, let producedAt, producedAt >= producedBefore { return false }
        if let batch, request.batch != batch { return false }
        if let requestID, request.id != requestID { return false }
        return true
    }

    /// The pipeline and tag of a record key of this form, or nil for any other key (an override's
    /// scope). A key of this form whose pipeline is `*` or empty, or whose tag is empty, is still
    /// a cancel's (`parse` refuses it, naming the key), never an override's scope.
    public static func split(key: String) -> (pipeline: String, tag: String)? {
        guard let marker = key.range(of: keyMarker) else { return nil }
        return (String(key[..<marker.lowerBound]), String(key[marker.upperBound...]))
    }

    /// Reads the record of key `key` strictly: every field present and typed, at least the bound.
    ///
    /// - Throws: `ControlError.malformed` naming the field that is wrong.
    public static func parse(key: String, _ bytes: [UInt8]) throws(ControlError) -> ControlCancel {
        guard let (pipeline, tag) = split(key: key), !pipeline.isEmpty, pipeline != ControlDocument.allPipelines, !tag.isEmpty else {
            throw .malformed("key '\(key)' is not <pipeline>\(keyMarker)<tag> naming one pipeline (a cancel of * would never apply)")
        }
        let document: JSONValue
        do { document = try JSONValue.parse(Data(bytes)) } catch { throw .malformed("malformed JSON: \(error)") }
        guard case .number(let number)? = document["version"], number >= 1, number == number.rounded(), number <= Double(ControlDocument.maxVersion) else {
            throw .malformed("version must be a positive integer of at most \(ControlDocument.maxVersion), got \(Self.show(document["version"]))")
        }
        guard let stamp = document["updatedAt"]?.stringValue, let updatedAt = WireDate.parse(stamp) else {
            throw .malformed("updatedAt must be an ISO 8601 time, got \(Self.show(document["updatedAt"]))")
        }
        guard let updatedBy = document["updatedBy"]?.stringValue, !updatedBy.isEmpty else { throw .malformed("updatedBy must be a non-empty string") }
        guard let reason = document["reason"]?.stringValue, !reason.isEmpty else { throw .malformed("reason must be a non-empty string") }
        guard case .object(let fields)? = document["cancel"] else { throw .malformed("cancel must be an object") }
        for name in fields.keys where !["batch", "requestId", "producedBefore"].contains(name) {
            throw .malformed("cancel.\(name) is not a member of a cancel (batch, requestId, producedBefore)")
        }
        var producedBefore: Date?
        if let value = fields["producedBefore"] {
            guard let bound = value.stringValue.flatMap(WireDate.parse) else {
                throw .malformed("cancel.producedBefore must be an ISO 8601 time, got \(Self.show(value))")
            }
            producedBefore = bound
        }
        var batch: String?
        if let value = fields["batch"] {
            guard let name = value.stringValue else { throw .malformed("cancel.batch must be a batch name, got \(Self.show(value))") }
            if let problem = BatchName.problem(with: name) { throw .malformed("cancel.batch \(Self.show(value)) \(problem)") }
            batch = name
        }
        var requestID: String?
        if let value = fields["requestId"] {
            guard let id = value.stringValue, !id.isEmpty, id.utf8.count <= RequestID.maxBytes else {
                throw .malformed("cancel.requestId must be a request id of 1 to \(RequestID.maxBytes) bytes, got \(Self.show(value))")
            }
            requestID = id
        }
        guard batch != nil || requestID != nil || producedBefore != nil else {
            throw .malformed("cancel must name a batch, a requestId or a producedBefore bound (an empty cancel would cancel everything)")
        }
        return ControlCancel(
            pipeline: pipeline, batch: batch, requestID: requestID, producedBefore: producedBefore, version: Int(number), updatedAt: updatedAt,
            updatedBy: updatedBy, reason: reason, tag: tag)
    }

    /// The record's value, as `parse` reads it back.
    public func jsonBytes() -> [UInt8] {
        var cancel: [String: Any] = [:]
        if let producedBefore { cancel["producedBefore"] = WireDate.text(producedBefore) }
        if let batch { cancel["batch"] = batch }
        if let requestID { cancel["requestId"] = requestID }
        let object: [String: Any] = [
            "version": version, "updatedAt": WireDate.text(updatedAt), "updatedBy": updatedBy, "reason": reason, "cancel": cancel,
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// A JSON value as an error message shows it, or `nothing` when absent.
    private static func show(_ value: JSONValue?) -> String {
        value.map(RequestRejection.show) ?? "nothing"
    }

    /// What it cancels, for logs and outcomes: `cancel v2 of deletions by alice at … (wrong list):
    /// batch gdpr-7, produced before …`; its author and reason cut to
    /// `ControlDocument.maxShownBytes` (each matched request logs it).
    public var description: String {
        var what: [String] = []
        if let batch { what.append("batch \(batch)") }
        if let requestID { what.append("request \(RequestID.shortForm(requestID))") }
        what.append(producedBefore.map { "produced before \(WireDate.text($0))" } ?? "whenever produced")
        let (by, why) = (updatedBy.utf8Prefix(maxBytes: ControlDocument.maxShownBytes), reason.utf8Prefix(maxBytes: ControlDocument.maxShownBytes))
        return "cancel v\(version) of \(pipeline) by \(by) at \(WireDate.text(updatedAt)) (\(why)): \(what.joined(separator: ", "))"
    }
}
