extension Array {
    /// For runs in order, each ending (exclusively) at the position `end` gives, later runs ending
    /// later: the index of the run holding `position`, by binary search. The last index when
    /// `position` is past every run's end; 0 for an empty array.
    @inlinable
    package func run(containing position: Int, end: (Element) -> Int) -> Int {
        var low = 0
        var high = count - 1
        while low < high {
            let middle = (low + high) / 2
            if end(self[middle]) <= position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
