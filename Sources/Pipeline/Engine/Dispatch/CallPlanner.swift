import InstanceAPI

/// Packs the items of requests into backend calls within each API's limit.
///
/// Items of different requests with the same op and target share calls (unless the op's do not,
/// `RequestOp.sharesCalls`); a large request is split. Per target key (topic, device group, …) work stays in arrival order: items are never
/// packed across a change of op, so a subscribe followed by an unsubscribe of the same topic is
/// planned as two calls, the subscribe first, and the caller runs one key's calls in order.
package struct CallPlanner: Sendable {
    /// Per ordering key, the work in arrival order, each part of one op and target, unbounded:
    /// adjacent work of the same op and target merges, and calls are cut from the front.
    private var queues: [String: [PlannedCall]] = [:]
    /// Keys in the order they first got work, so old work is planned first.
    private var keyOrder: [String] = []
    /// Keys that got items since the last `take`: the only ones that can have a full call.
    private var touched: [String] = []

    /// Items per call, per op (within the limit of the API the op calls: the caller's answer,
    /// `PipelineConfiguration.itemsPerCall(_:)` for a worker). A function, not a table: it is
    /// asked for every waiting key at every take, and a table keyed by op hashes the op's name.
    private let itemsPerCall: @Sendable (RequestOp) -> Int

    /// An empty planner packing at most `itemsPerCall(op)` items (at least one) into each call;
    /// by default each op's limit on the Instance ID backend (`RequestOp.itemsPerCall(on:)`).
    public init(itemsPerCall: @escaping @Sendable (RequestOp) -> Int = { $0.itemsPerCall(on: .iidBatch) }) {
        self.itemsPerCall = itemsPerCall
    }

    /// Items waiting to be planned.
    public var pendingItems: Int { queues.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.items.count } } }

    /// Adds a request's items; `handle` comes back in each item's origin.
    public mutating func add(_ request: PipelineRequest, handle: RequestHandle) {
        let key = OrderingRule.key(op: request.op, target: request.target) ?? request.op.rawValue + "|" + request.target.batchKey
        if queues[key] == nil {
            queues[key] = []
            keyOrder.append(key)
        }
        if touched.last != key { touched.append(key) }
        if request.op.sharesCalls, let last = queues[key]!.last, last.op == request.op, last.target == request.target {
            queues[key]![queues[key]!.count - 1].items.append(contentsOf: request.items)
            queues[key]![queues[key]!.count - 1].origins.append(request: handle, indexes: request.items.indices)
        } else {
            queues[key]!.append(
                PlannedCall(
                    op: request.op, target: request.target, items: request.items,
                    origins: OriginList(request: handle, indexes: request.items.indices)))
        }
    }

    /// Takes calls off the queues: every full call, and with `flush` (the linger time passed) the
    /// partial ones too, at most `maxPartialCalls` of them, from the keys that got work first (the
    /// others go on gathering items), but none of a key whose next call `waitsForKey` (given the
    /// key, which is `OrderingRule.key` for an op that has one, the op and the target) says could
    /// not start now: its items go on gathering until it could. Calls of one key come out in
    /// arrival order.
    public mutating func take(
        flush: Bool, maxPartialCalls: Int = .max, waitsForKey: (String, RequestOp, RequestTarget) -> Bool = { _, _, _ in false }
    ) -> [PlannedCall] {
        // Without a flush only keys that got items can have a full call: the others are not
        // visited (a worker takes after every request, and may hold thousands of keys).
        let visited = flush ? keyOrder : touched
        touched.removeAll(keepingCapacity: true)
        var calls: [PlannedCall] = []
        var partialCalls = 0
        var emptied = false
        for key in visited {
            // A key with no full call to give, once no more partial calls may be formed, is left
            // where it is (most keys, when a freed slot takes one partial call).
            // (Read in place: a copy of the first call would retain each of its buffers.)
            if let segments = queues[key], !segments.isEmpty, segments[0].items.count < limit(segments[0].op),
                !(flush && partialCalls < maxPartialCalls) || waitsForKey(key, segments[0].op, segments[0].target)
            {
                continue
            }
            // Taken out of the dictionary so that it is changed in place, not copied.
            guard var segments = queues.removeValue(forKey: key) else { continue }
            while !segments.isEmpty {
                let perCall = limit(segments[0].op)
                let full = segments[0].items.count >= perCall
                guard full || (flush && partialCalls < maxPartialCalls && !waitsForKey(key, segments[0].op, segments[0].target)) else { break }
                if !full { partialCalls += 1 }
                let count = min(perCall, segments[0].items.count)
                calls.append(
                    PlannedCall(
                        op: segments[0].op, target: segments[0].target, items: segments[0].items.extracting(0..<count),
                        origins: segments[0].origins.extracting(0..<count)))
                if count == segments[0].items.count {
                    segments.removeFirst()
                } else {
                    segments[0].items.removeFirst(count)
                    segments[0].origins.removeFirst(count)
                }
            }
            if segments.isEmpty { emptied = true } else { queues[key] = segments }
        }
        if emptied { keyOrder.removeAll { queues[$0] == nil } }
        return calls
    }

    /// Items per call for `op`: the caller's figure, never above the most any API the op can
    /// call takes (`RequestOp.mostItemsPerCall`), however the planner was made.
    private func limit(_ op: RequestOp) -> Int { max(1, min(op.mostItemsPerCall, itemsPerCall(op))) }

    /// True when no item waits to be planned.
    public var isEmpty: Bool { keyOrder.isEmpty }

    /// Forgets every waiting item of the requests in `handles` (their partitions were revoked).
    public mutating func drop(_ handles: Set<RequestHandle>) {
        for (key, segments) in queues {
            queues[key] = segments.compactMap { segment in
                var segment = segment
                segment.drop(handles)
                return segment.items.isEmpty ? nil : segment
            }
        }
        keyOrder.removeAll { queues[$0]?.isEmpty ?? true }
        for key in queues.keys where queues[key]!.isEmpty { queues[key] = nil }
    }

}
