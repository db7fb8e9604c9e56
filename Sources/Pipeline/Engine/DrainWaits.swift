/// The drains a worker waits for (`WorkerMachine.beginDrain(_:)`), each a `DrainCondition` under
/// its own id: the one owner of their bookkeeping.
///
/// Guarantees: a drain ends once, with one `.drainEnded(id:drained:)`, or by `expire` (whose
/// caller then knows it ended); `end(_:drained:)` ends only drains still open, in the order given
/// (`ids(where:)` gives them in id order).
struct DrainWaits: Sendable {
    private var open: [Int: DrainCondition] = [:]
    private var next = 0

    /// Waits for `condition` under a new id.
    mutating func begin(_ condition: DrainCondition) -> Int {
        defer { next += 1 }
        open[next] = condition
        return next
    }

    /// Drain `id` reached its deadline: true when it was still waiting (it ends undrained).
    mutating func expire(_ id: Int) -> Bool {
        open.removeValue(forKey: id) != nil
    }

    /// The open drains whose condition `picked` picks.
    func ids(where picked: (DrainCondition) -> Bool) -> [Int] {
        open.isEmpty ? [] : open.filter { picked($0.value) }.keys.sorted()
    }

    /// Ends the open drains among `ids`, `drained` or not.
    mutating func end(_ ids: [Int], drained: Bool) -> [WorkerAction] {
        ids.compactMap { open.removeValue(forKey: $0) == nil ? nil : .drainEnded(id: $0, drained: drained) }
    }
}
