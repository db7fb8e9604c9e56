import WireJSON

/// Where each item of a call came from, kept as runs: consecutive items of one request at
/// consecutive positions in it are one run. A call's items come in such runs (a request's items
/// are planned in order), so a call of 1,000 items of one request is one run, and what is decided
/// per request (counting calls, settling, dropping) is decided per run, not per item.
///
/// Guarantees: the list is the same sequence of origins however it was built, and two lists
/// with the same origins have the same runs (adjacent runs that continue each other are always
/// merged), so equality is that of the origins.
public struct OriginList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Items of `request` at positions `indexes` in it, ending before position `end` of the list.
    public struct Run: Sendable, Hashable {
        /// The request's handle.
        public var request: RequestHandle
        /// The items' positions in the request.
        public var indexes: Range<Int>
        /// The position in the list after the run's last item.
        public var end: Int

        /// The positions in the list the run covers.
        public var positions: Range<Int> { (end - indexes.count)..<end }
    }

    /// The runs, in order.
    public private(set) var runs: [Run] = []

    /// An empty list.
    public init() {}

    /// The origins, in order.
    public init(arrayLiteral origins: PlannedCall.Origin...) {
        for origin in origins { append(request: origin.request, indexes: origin.index..<origin.index + 1) }
    }

    /// Items `indexes` of `request`.
    public init(request: RequestHandle, indexes: Range<Int>) {
        append(request: request, indexes: indexes)
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of origins.
    public var endIndex: Int { runs.last?.end ?? 0 }

    /// The origin of the item at `position`.
    public subscript(position: Int) -> PlannedCall.Origin {
        let run = runs[run(containing: position)]
        return PlannedCall.Origin(request: run.request, index: run.indexes.upperBound - (run.end - position))
    }

    /// The position in `runs` of the run holding the item at `position`.
    public func run(containing position: Int) -> Int {
        runs.run(containing: position) { $0.end }
    }

    /// Appends items `indexes` of `request`, extending the last run when they continue it.
    public mutating func append(request: RequestHandle, indexes: Range<Int>) {
        guard !indexes.isEmpty else { return }
        if let last = runs.indices.last, runs[last].request == request, runs[last].indexes.upperBound == indexes.lowerBound {
            runs[last].indexes = runs[last].indexes.lowerBound..<indexes.upperBound
            runs[last].end += indexes.count
        } else {
            runs.append(Run(request: request, indexes: indexes, end: endIndex + indexes.count))
        }
    }

    /// Appends the origins at `positions` of `other`, one step per run they touch.
    public mutating func append(_ positions: Range<Int>, of other: OriginList) {
        guard !positions.isEmpty else { return }
        var position = positions.lowerBound
        var index = other.run(containing: position)
        while position < positions.upperBound {
            let run = other.runs[index]
            let upTo = Swift.min(run.end, positions.upperBound)
            let first = run.indexes.lowerBound + (position - run.positions.lowerBound)
            append(request: run.request, indexes: first..<first + (upTo - position))
            position = upTo
            index += 1
        }
    }

    /// Appends every origin of `other`.
    public mutating func append(contentsOf other: OriginList) {
        append(other.indices, of: other)
    }

    /// The origins at `positions`.
    public func extracting(_ positions: Range<Int>) -> OriginList {
        var part = OriginList()
        part.append(positions, of: self)
        return part
    }

    /// Removes the first `count` origins.
    public mutating func removeFirst(_ count: Int) {
        self = extracting(count..<endIndex)
    }

    /// The positions of the items whose request `isKept` accepts, as ranges in order.
    func positions(keeping isKept: (RequestHandle) -> Bool) -> [Range<Int>] {
        runs.filter { isKept($0.request) }.map(\.positions)
    }

    /// True when an item of a request in `handles` is in the list.
    func carries(any handles: Set<RequestHandle>) -> Bool {
        runs.contains { handles.contains($0.request) }
    }
}
