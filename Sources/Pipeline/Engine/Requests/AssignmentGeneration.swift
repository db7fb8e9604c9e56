/// Which assignment of a partition a record belongs to: it grows each time partitions are
/// assigned to the worker, so work from before a revoke can be told from work of a later
/// assignment of the same partition.
public struct AssignmentGeneration: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The generation's number, starting at 0.
    public let value: Int

    /// Before any assignment.
    public static let first = AssignmentGeneration(value: 0)

    /// The generation after this one.
    public var next: AssignmentGeneration { AssignmentGeneration(value: value + 1) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

    public var description: String { "generation \(value)" }
}
