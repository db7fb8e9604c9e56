/// Why a record is not a valid request. The reason names the field; the id is kept when one could
/// be read, so that a `rejected` outcome can be published for it.
public struct RequestRejection: Error, Sendable, Hashable, CustomStringConvertible {
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

    /// A rejection.
    public init(field: String?, reason: String, requestID: String? = nil, op: RequestOp? = nil, replayOf: String? = nil) {
        self.field = field
        self.reason = reason
        self.requestID = requestID
        self.op = op
        self.replayOf = replayOf
    }

    public var description: String { field.map { "\($0): \(reason)" } ?? reason }
}
