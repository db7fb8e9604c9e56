/// A worker's name for one request it holds: unique within the worker, never reused, so a late
/// answer for a request that was abandoned cannot be mistaken for one of a later request.
public struct RequestHandle: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The handle's number.
    public let value: Int

    /// A handle.
    public init(_ value: Int) { self.value = value }

    /// A handle from a literal (for tests and examples).
    public init(integerLiteral value: Int) { self.value = value }

    /// The handle after this one.
    public var next: RequestHandle { RequestHandle(value + 1) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

    public var description: String { "request #\(value)" }
}
