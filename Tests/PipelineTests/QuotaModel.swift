/// A backend's quota as the emulator enforces it (`FaultInjector`): a token bucket of `rate`
/// calls a second holding one second's calls, full at the start, decided as each call arrives.
/// A call over quota is throttled; the 429 path (FCM v1, deletions) also sends `Retry-After: 1`.
struct QuotaModel {
    /// The quota, calls per second, as a function of the simulated second (to change it midway).
    let rate: (Int) -> Double
    /// Whether a throttled call is answered `Retry-After: 1` (a 429) or not (an item's
    /// RESOURCE_EXHAUSTED in a batch answer).
    let retryAfter: Bool
    private var tokens: Double
    private var last: ContinuousClock.Instant
    private let start: ContinuousClock.Instant

    /// A full bucket at `start`.
    init(rate: @escaping (Int) -> Double, retryAfter: Bool, start: ContinuousClock.Instant) {
        self.rate = rate
        self.retryAfter = retryAfter
        self.tokens = rate(0)
        self.last = start
        self.start = start
    }

    /// Whether a call arriving at `now` is within the quota (it takes a token) or throttled.
    mutating func accepts(now: ContinuousClock.Instant) -> Bool {
        let quota = rate(Int((now - start) / .seconds(1)))
        tokens = min(max(quota, 1), tokens + (now - last) / .seconds(1) * quota)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
