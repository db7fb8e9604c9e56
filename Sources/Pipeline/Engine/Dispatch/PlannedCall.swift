import InstanceAPI
import WireJSON

/// One backend call the planner made: items of one op and target, at most the items per call the
/// planner was given for the op, each remembering which request and position it came from.
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
    public var origins: OriginList

    /// A call of `items` of `op` on `target`, each item from the origin at its position.
    public init(op: RequestOp, target: RequestTarget, items: PackedStrings = [], origins: OriginList = []) {
        self.op = op
        self.target = target
        self.items = items
        self.origins = origins
    }

    /// Appends the items at `positions` of `other` with their origins.
    mutating func append(_ positions: Range<Int>, of other: PlannedCall) {
        items.append(positions, of: other.items)
        origins.append(positions, of: other.origins)
    }

    /// Removes the items of the requests in `handles`, one step per run of origins; returns how
    /// many were removed.
    @discardableResult
    mutating func drop(_ handles: Set<RequestHandle>) -> Int {
        guard origins.carries(any: handles) else { return 0 }
        var kept = PlannedCall(op: op, target: target)
        for positions in origins.positions(keeping: { !handles.contains($0) }) { kept.append(positions, of: self) }
        let removed = items.count - kept.items.count
        self = kept
        return removed
    }
}
