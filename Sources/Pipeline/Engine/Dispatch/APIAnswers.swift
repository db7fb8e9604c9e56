import InstanceAPI

/// When a call of each API was last answered (its items, whatever they said): what tells a
/// failure of the whole system from one that is a call's own. A pure value.
struct APIAnswers: Sendable {
    private var answeredAt: [BackendAPI: ContinuousClock.Instant] = [:]

    /// A call of `api` was answered at `now`.
    mutating func answered(_ api: BackendAPI, at now: ContinuousClock.Instant) {
        answeredAt[api] = now
    }

    /// Whether `error`, which failed a call of `api` started at `startedAt` for a job that last
    /// failed for the whole system at `systemFailedAt`, is that job's own: a failure of the kind
    /// that fails the whole system, while a call of the same API was answered since the call
    /// started, or since the job's last such failure. The system works then (another project's id
    /// behind a 403 that names nobody, a page answered for one path). A call never sent (no access
    /// token) has no failure of its own.
    func isOwnFailure(
        _ error: InstanceAPIError, of api: BackendAPI, startedAt: ContinuousClock.Instant, systemFailedAt: ContinuousClock.Instant?
    ) -> Bool {
        guard error.isOutage, error.wasSent, let answered = answeredAt[api] else { return false }
        return answered > startedAt || systemFailedAt.map { answered > $0 } ?? false
    }
}
