import InstanceAPI
import WireJSON

/// Why a record is not a valid request. The reason names the field; the id is kept when one could
/// be read, so that a `rejected` outcome can be published for it.
///
/// Guarantees: the reason takes at most `maxReasonBytes` bytes and the ids at most
/// `RequestID.maxBytes` (an over-long one is kept in its `RequestID.shortForm(_:)`), each target
/// value at most `Outcome.maxCompactTargetBytes` (cut as a compact outcome cuts it); a field is a
/// name of the decoder's own or a member's name quoted with `quote(_:mark:)`, as are the values a
/// reason shows: a rejection's outcome, dead-letter header and log line stay small whatever the
/// record held.
public struct RequestRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The most bytes of a value a reason quotes (`quote(_:mark:)`).
    public static let maxQuotedBytes = 64
    /// The most bytes of a reason; a longer one is cut at a UTF-8 boundary and ends with `…`.
    public static let maxReasonBytes = 1_024

    /// The offending field (`op`, `tokens[3]`, `topic`, …), or nil for the record as a whole.
    public var field: String?
    /// What is wrong, with the offending value.
    public var reason: String
    /// The request id, when the record had a readable one.
    public var requestID: String?
    /// The op, when the record named a known one.
    public var op: RequestOp?
    /// The `replayOf` id, when the record was a readable replay: its rejection then counts
    /// toward the original request's replays, not as a second outcome of the original.
    public var replayOf: String?
    /// The batch, when the record named a valid one: its rejection counts in the batch's progress.
    public var batch: String?
    /// For a duplicate of a request in flight: that request's record position (`Outcome.duplicateOf`).
    public var duplicateOf: String?
    /// The target fields that could be read (a deletion's `subject`), for the `rejected` outcome:
    /// so that an erasure report finds the rejected deletions of its subject (`ErasureReport`).
    public var target: [String: String]

    /// A rejection; the reason, ids and target values are cut to their bounds.
    public init(
        field: String?, reason: String, requestID: String? = nil, op: RequestOp? = nil, replayOf: String? = nil, batch: String? = nil,
        duplicateOf: String? = nil, target: [String: String] = [:]
    ) {
        self.field = field
        self.reason = reason.utf8.count <= Self.maxReasonBytes ? reason : reason.utf8Prefix(maxBytes: Self.maxReasonBytes - 3) + "…"
        self.requestID = requestID.map(RequestID.shortForm)
        self.op = op
        self.replayOf = replayOf.map(RequestID.shortForm)
        self.batch = batch.flatMap { BatchName.problem(with: $0) == nil ? $0 : nil }
        self.duplicateOf = duplicateOf
        self.target = target.mapValues { $0.utf8Prefix(maxBytes: Outcome.maxCompactTargetBytes) }
    }

    public var description: String { field.map { "\($0): \(reason)" } ?? reason }

    /// `text` between two `mark`s as a reason shows a value: whole when it takes at most
    /// `maxQuotedBytes` bytes, else its first bytes cut at a UTF-8 boundary, `…` and its length:
    /// `'aaaa…' (600000 bytes)`.
    public static func quote(_ text: String, mark: String = "'") -> String {
        let bytes = text.utf8.count
        guard bytes > maxQuotedBytes else { return mark + text + mark }
        return mark + text.utf8Prefix(maxBytes: maxQuotedBytes) + "…" + mark + " (\(bytes) bytes)"
    }

    /// A short rendering of a JSON value for reasons: a string quoted and cut by `quote(_:mark:)`,
    /// a number, a flag, `null`, or the kind and size of an array or object.
    static func show(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? "\(Int(number))" : "\(number)"
        case .string(let text): quote(text, mark: "\"")
        case .array(let elements): "an array of \(elements.count)"
        case .object: "an object"
        }
    }
}
