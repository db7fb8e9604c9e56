import Synchronization

/// Whether the calls a task makes may still send requests. Once `close`d, no request of those
/// calls leaves: not after a wait for an access token, a connection or a stream, not the retry
/// after a 401, not the next call of a job made of several. Each such call fails
/// `InstanceAPIError.withdrawn`, which says it was not sent. A request already sent is beyond
/// recall.
///
/// A pipeline closes a call's gate when the call's records are handed to another worker, so
/// that nothing this worker sends for them can land after the new owner's calls on the same key.
public final class SendGate: Sendable {
    private let closed = Atomic<Bool>(false)

    /// An open gate.
    public init() {}

    /// The gate of the calls the current task makes (`SendGate.$current.withValue(gate) { … }`);
    /// nil: always open.
    @TaskLocal public static var current: SendGate?

    /// Closes the gate, for good: no request of its calls is sent from now on.
    public func close() {
        closed.store(true, ordering: .releasing)
    }

    /// Whether `close` was called.
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Whether the current task's gate, if it has one, was closed.
    static var currentIsClosed: Bool { current?.isClosed ?? false }
}
