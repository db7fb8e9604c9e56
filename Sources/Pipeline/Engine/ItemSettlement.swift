import InstanceAPI

/// One item became final: which request and position, its answer, and what it took.
public struct ItemSettlement: Sendable, Hashable {
    /// Where the item came from.
    public var origin: PlannedCall.Origin
    /// Its final answer.
    public var answer: ItemAnswer
    /// Attempts made in this worker.
    public var attempts: Int
    /// The last whole-call failure the item saw, if any.
    public var lastError: String?
}
