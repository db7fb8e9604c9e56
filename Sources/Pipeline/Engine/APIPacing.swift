import InstanceAPI

/// Each backend API's pace: its adaptive rate, the token bucket that spaces its calls at that
/// rate, and the wait a server asked for with `Retry-After`. A pure value: every event carries
/// its instant.
struct APIPacing: Sendable {
    /// The adaptive rate of each API called so far.
    private(set) var rates: [BackendAPI: AdaptiveRate] = [:]
    private var buckets: [BackendAPI: TokenBucket] = [:]
    private var blockedUntil: [BackendAPI: ContinuousClock.Instant] = [:]
    private var settings: AdaptiveRate.Settings

    /// Pacing at `settings` for every API.
    init(_ settings: AdaptiveRate.Settings) {
        self.settings = settings
    }

    /// Nil when a call of `api` may start now (it takes a slot); else the instant one may.
    mutating func admit(_ api: BackendAPI, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let until = blockedUntil[api] {
            if until > now { return until }
            blockedUntil[api] = nil
        }
        let rate = rates[api, default: AdaptiveRate(settings)].rate
        return buckets[api, default: TokenBucket(rate: rate, now: now)].take(now: now).map { now + $0 }
    }

    /// A call of `api` started at `startedAt` was answered, `throttled` or not: its rate moves, and
    /// its bucket with it.
    mutating func answered(_ api: BackendAPI, startedAt: ContinuousClock.Instant, throttled: Bool, now: ContinuousClock.Instant) {
        var rate = rates[api] ?? AdaptiveRate(settings)
        if throttled { rate.throttled(startedAt: startedAt, now: now) } else { rate.succeeded(startedAt: startedAt) }
        rates[api] = rate
        buckets[api]?.setRate(rate.rate, now: now)
    }

    /// The server asked every call of `api` to wait `wait` (the caller bounds it).
    mutating func block(_ api: BackendAPI, for wait: Duration, now: ContinuousClock.Instant) {
        blockedUntil[api] = max(blockedUntil[api] ?? now, now + wait)
    }

    /// New settings from now on: every API called so far (a bucket exists from its first call,
    /// answered or not) keeps its rate within the new bounds.
    mutating func reconfigure(_ settings: AdaptiveRate.Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        for api in Set(rates.keys).union(buckets.keys) {
            var rate = rates[api] ?? AdaptiveRate(settings)
            rate.reconfigure(settings)
            rates[api] = rate
            buckets[api]?.setRate(rate.rate, now: now)
        }
    }
}
