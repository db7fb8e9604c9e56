/// How long work has been suspended (the breaker open, or an operator's pause), in all: time an
/// item's `max-elapsed` budget is not charged for.
///
/// A pure value: every event carries its instant.
struct OutageClock: Sendable {
    private var started: ContinuousClock.Instant?
    private var before: Duration = .zero

    /// The suspended time up to `now`.
    func total(now: ContinuousClock.Instant) -> Duration {
        before + (started.map { now - $0 } ?? .zero)
    }

    /// Whether work is suspended from `now` on.
    mutating func note(suspended: Bool, now: ContinuousClock.Instant) {
        if suspended, started == nil { started = now }
        if !suspended, let started {
            before += now - started
            self.started = nil
        }
    }

    /// Time since `job`'s first attempt, less the time suspended meanwhile.
    func chargedElapsed(_ job: CallJob, now: ContinuousClock.Instant) -> Duration {
        guard let first = job.firstAttempt else { return .zero }
        return (now - first) - (total(now: now) - job.outageAtFirstAttempt)
    }
}
