import InstanceAPI

/// Each backend API's pace: its adaptive rate, the token bucket that spaces its calls at that
/// rate (none while the rate is unpaced and has no ceiling), and the wait a server asked for
/// with `Retry-After`. A pure value: every event carries its instant.
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

    /// The pace `api`'s calls keep now, calls per second; nil while unpaced without a ceiling.
    func pace(of api: BackendAPI) -> Double? {
        (rates[api] ?? AdaptiveRate(settings)).pace
    }

    /// Nil when a call of `api` may start now (it takes a slot); else the instant one may.
    mutating func admit(_ api: BackendAPI, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let until = blockedUntil[api] {
            if until > now { return until }
            blockedUntil[api] = nil
        }
        if rates[api] == nil { rates[api] = AdaptiveRate(settings) }
        // Unpaced without a ceiling: no bucket, nothing held back.
        guard let pace = rates[api]!.pace else {
            rates[api]!.started(at: now)
            return nil
        }
        guard let wait = buckets[api, default: TokenBucket(rate: pace, now: now)].take(now: now) else {
            rates[api]!.started(at: now)
            return nil
        }
        return now + wait
    }

    /// A call of `api` started at `startedAt` was answered, `throttled` or not: its rate moves, and
    /// its bucket with it.
    mutating func answered(_ api: BackendAPI, startedAt: ContinuousClock.Instant, throttled: Bool, now: ContinuousClock.Instant) {
        // In place: a copy would copy the rate's count of accepted calls at every answer.
        if throttled {
            rates[api, default: AdaptiveRate(settings)].throttled(startedAt: startedAt, now: now)
        } else {
            rates[api, default: AdaptiveRate(settings)].succeeded(startedAt: startedAt, now: now)
        }
        follow(api, now: now)
    }

    /// The server asked every call of `api` to wait `wait` (the caller bounds it).
    mutating func block(_ api: BackendAPI, for wait: Duration, now: ContinuousClock.Instant) {
        blockedUntil[api] = max(blockedUntil[api] ?? now, now + wait)
    }

    /// New settings from now on: every API called so far (a rate exists from its first call,
    /// answered or not) keeps its rate within the new bounds.
    mutating func reconfigure(_ settings: AdaptiveRate.Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        for api in rates.keys {
            rates[api]!.reconfigure(settings)
            follow(api, now: now)
        }
    }

    /// The bucket of `api` keeps its rate's pace: moved with it, made when pacing begins (full,
    /// at the first throttle, as the calls in flight were already bounded), dropped when the
    /// pace is lifted (an unpaced rate's ceiling removed).
    private mutating func follow(_ api: BackendAPI, now: ContinuousClock.Instant) {
        guard let pace = rates[api]?.pace else {
            buckets[api] = nil
            return
        }
        if buckets[api] == nil { buckets[api] = TokenBucket(rate: pace, now: now) } else { buckets[api]!.setRate(pace, now: now) }
    }
}
