import InstanceAPI

/// What becomes of a job whose whole call failed (no per-item answer): a pure decision from the
/// error, whether the failure is the job's own, the breaker and the retry budget.
enum FailedCallVerdict: Equatable {
    /// None of its items is left (their requests were revoked): it gives up its key.
    case released
    /// Not sent: withdrawn (`SendGate`) for the items of requests a revoke abandoned. The rest
    /// go again at once, uncharged, keeping their key's place.
    case resent
    /// Throttled: sent again at the API's cut pace (and after any `Retry-After`), not charged an
    /// attempt; bounded by `max-elapsed` only.
    case paced
    /// A failure of the whole system: not the items' fault, so not charged; sent again as a
    /// suspect, never the next probe while other work waits (one item that always fails this way
    /// must not be every probe).
    case suspect
    /// A failure of the whole system, while the breaker still lets calls through: not charged,
    /// and sent again after a backoff that grows with each, within `max-elapsed` (one API failing
    /// for everyone while others answer may never open the breaker: its items must end).
    case outageBackoff
    /// Charged an attempt, and sent again after a backoff.
    case backoff
    /// Charged an attempt, and settled with the error's code: the error is final, or the budget
    /// is spent.
    case settle

    /// The verdict for `job` (its revoked items dropped), which failed with `error`, `elapsed`
    /// of its `max-elapsed` spent: its budget is `configuration`'s retry policy, and it goes
    /// uncharged for fewer failures than the breaker's threshold (see below).
    static func of(
        _ error: InstanceAPIError, job: CallJob, alone: Bool, breakerClosed: Bool, elapsed: Duration, configuration: PipelineConfiguration
    ) -> FailedCallVerdict {
        of(
            error, itemsLeft: !job.items.isEmpty, alone: alone, breakerClosed: breakerClosed,
            pacedRetryAllowed: configuration.retry.allowsRetry(attemptsMade: 0, elapsed: elapsed),
            chargedRetryAllowed: configuration.retry.allowsRetry(attemptsMade: job.attempts + 1, elapsed: elapsed),
            unchargedLeft: job.countedOutageFailures < configuration.breakerThreshold)
    }

    /// The verdict for a job with `itemsLeft` items (after dropping revoked ones) whose call failed
    /// with `error`. A failure of the kind that fails the whole system (`InstanceAPIError.isOutage`)
    /// is not charged unless it is `alone`: the failure, though of that kind, is this
    /// job's own (a call of its API was answered meanwhile); such a failure gets the retries of
    /// the job's budget too (a 403 for one id may be a backend that does not know it yet).
    /// `pacedRetryAllowed`: `max-elapsed` allows another attempt; `chargedRetryAllowed`: the
    /// budget allows one more after charging this one. `unchargedLeft`: the job failed so, with
    /// the breaker closed, fewer times than the breaker's threshold, counting only failures the
    /// breaker could open on (no success just before) or that came after others were answered
    /// since the job's last failure. An outage for everyone opens
    /// the breaker within about that many failures; a job that fails more often with it closed
    /// meets a system that answers others (one API down while the pipeline's others answer,
    /// each success closing the one breaker again), and is charged from then on, so it ends.
    static func of(
        _ error: InstanceAPIError, itemsLeft: Bool, alone: Bool, breakerClosed: Bool, pacedRetryAllowed: Bool, chargedRetryAllowed: Bool,
        unchargedLeft: Bool = true
    ) -> FailedCallVerdict {
        guard itemsLeft else { return .released }
        if case .withdrawn = error { return .resent }
        if error.resultCode == .resourceExhausted, pacedRetryAllowed { return .paced }
        if !alone, error.isOutage {
            // The whole system's, not the items': not charged (its code may not even be
            // retryable: a 501 on every call is a proxy's, not the items'). Suspect once the
            // breaker is open (or it opens at once, as for credentials); before, backed off
            // within `max-elapsed`, which the time the breaker is open does not count toward.
            if error.isSystemic || !breakerClosed { return .suspect }
            if unchargedLeft { return pacedRetryAllowed ? .outageBackoff : .settle }
        }
        if !alone, error.isRetryable, !breakerClosed { return .suspect }
        return (error.isRetryable || alone) && chargedRetryAllowed ? .backoff : .settle
    }
}
