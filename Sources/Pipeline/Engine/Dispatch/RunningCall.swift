/// A call attempt whose answer has not come back yet.
struct RunningCall: Sendable {
    /// The attempt.
    var job: CallJob
    /// Whether it is the circuit breaker's probe.
    var probe: Bool
    /// When this attempt started (for the adaptive rate: answers to calls sent before a cut say
    /// nothing new).
    var startedAt: ContinuousClock.Instant
    /// Positions of items whose requests were revoked while it ran: their final answers are
    /// still settled, but they are never retried.
    var revoked: Set<Int> = []
}
