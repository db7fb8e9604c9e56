/// A call attempt whose answer has not come back yet.
struct RunningCall: Sendable {
    /// The attempt.
    var job: CallJob
    /// Whether it is the circuit breaker's probe.
    var probe: Bool
    /// Positions of items whose requests were revoked while it ran: their final answers are
    /// still settled, but they are never retried.
    var revoked: Set<Int> = []
}
