import InstanceAPI

/// One backend call the planner made: items of one op and target, at most the op's per-call
/// limit, each remembering which request and position it came from.
public struct PlannedCall: Sendable, Hashable {
    /// Where one item of the call came from.
    public struct Origin: Sendable, Hashable {
        /// The request's handle, as given to the planner.
        public var request: RequestHandle
        /// The item's index in that request.
        public var index: Int

        /// An origin.
        public init(request: RequestHandle, index: Int) {
            self.request = request
            self.index = index
        }
    }

    /// The op.
    public var op: RequestOp
    /// The target.
    public var target: RequestTarget
    /// The items, in order.
    public var items: PackedStrings
    /// For each item, where it came from.
    public var origins: [Origin]
}
