import InstanceAPI

/// One item became final: which request and position, its answer, and what it took.
struct ItemSettlement: Sendable, Hashable {
    /// Where the item came from.
    var origin: PlannedCall.Origin
    /// Its final answer.
    var answer: ItemAnswer
    /// Attempts made in this worker.
    var attempts: Int
    /// The last whole-call failure the item saw, if any.
    var lastError: String?
}
