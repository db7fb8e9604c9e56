/// A list kept as runs of equal adjacent elements: the form per-item answers travel in, since a
/// call's items mostly end alike (1,000 `OK`s are one run, not 1,000 copies).
///
/// Guarantees: the elements read back in order, as appended; `append` and the initialisers
/// merge an element equal to the one before it into its run, so their runs are maximal;
/// `mapRuns` transforms each run once and keeps the runs as they are (two runs may then hold
/// equal values). Reading element `i` costs a binary search over the runs.
public struct RunLengthList<Element: Equatable>: RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Equal adjacent elements: `value`, up to (not including) position `end` of the list.
    public struct Run {
        /// The run's element.
        public var value: Element
        /// The position after the run's last element.
        public var end: Int
    }

    /// The runs, in order.
    public private(set) var runs: [Run] = []

    /// An empty list.
    public init() {}

    /// The elements of `elements`, in order.
    public init(_ elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// The elements.
    public init(arrayLiteral elements: Element...) { self.init(elements) }

    /// `value`, `count` times.
    public init(repeating value: Element, count: Int) {
        append(value, count: count)
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { runs.last?.end ?? 0 }

    /// Element `index`.
    public subscript(index: Int) -> Element { runs[run(containing: index)].value }

    /// The position in `runs` of the run holding element `index`.
    func run(containing index: Int) -> Int {
        runs.run(containing: index) { $0.end }
    }

    /// Appends `value` `count` times, extending the last run when it holds an equal value.
    public mutating func append(_ value: Element, count: Int = 1) {
        guard count > 0 else { return }
        if let last = runs.indices.last, runs[last].value == value {
            runs[last].end += count
        } else {
            runs.append(Run(value: value, end: endIndex + count))
        }
    }

    /// The list with each run's value transformed once.
    public func mapRuns<T>(_ transform: (Element) throws -> T) rethrows -> RunLengthList<T> {
        var mapped = RunLengthList<T>()
        mapped.runs = try runs.map { RunLengthList<T>.Run(value: try transform($0.value), end: $0.end) }
        return mapped
    }
}

extension RunLengthList: Sendable where Element: Sendable {}
extension RunLengthList.Run: Sendable where Element: Sendable {}

extension RunLengthList: Equatable {
    /// The same elements in the same order, however they are split into runs.
    public static func == (lhs: RunLengthList, rhs: RunLengthList) -> Bool {
        lhs.elementsEqual(rhs)
    }
}
