/// A token bucket: `rate` tokens a second, holding at most `burst`. Callers ask before each call
/// and are told how long to wait when the bucket is empty: until `wakeBatch` tokens are there.
/// An emptied bucket grants nothing more until then, however often it is asked (an answer
/// freeing a slot asks too), so a paced caller starts its calls about once per `wakeInterval`,
/// several together (one pump, one flush of their requests), not one per token as tokens trickle
/// in; as many as its calls in flight allow then (at low latency the API's concurrency limit may
/// be below a batch, and the rest start as slots free). The tokens taken never outrun `rate`
/// over time: the wait only groups them.
public struct TokenBucket: Sendable {
    /// The time worth of tokens an empty bucket's wait covers: at 3,000 calls/s, 60 calls per
    /// wake and about 50 wakes a second instead of 3,000; at 500/s, 10 calls per wake. Each wake
    /// costs the worker a timer, a pump of its machines and the tasks' hops whatever it starts, so
    /// fewer, fuller wakes cost less per call: `bench worker --shapes deletions-3` (the shipped
    /// 500/s) measured 196–226 µs of worker CPU per call at 5 ms and 172–187 at 20 ms (release,
    /// alternating runs). The quota sees the same rate over any second, and the calls of one wake
    /// stay within `burst`.
    public static let wakeInterval: Duration = .milliseconds(20)

    /// Tokens added per second.
    public private(set) var rate: Double
    /// The most tokens held (calls allowed back to back after a quiet spell).
    public private(set) var burst: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant
    /// The bucket ran empty and grants nothing until `wakeBatch` tokens are there again.
    private var refilling = false

    /// A full bucket.
    public init(rate: Double, burst: Double? = nil, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.burst = max(1, burst ?? max(1, rate / 10))
        self.tokens = self.burst
        self.refilledAt = now
    }

    /// Changes the rate from `now` on (the time before it is refilled at the old rate); the burst
    /// becomes a tenth of a second's tokens at the new rate (at least one), a burst given to
    /// `init` included.
    public mutating func setRate(_ newRate: Double, now: ContinuousClock.Instant) {
        refill(now: now)
        rate = newRate
        burst = max(1, newRate / 10)
        tokens = min(tokens, burst)
    }

    private mutating func refill(now: ContinuousClock.Instant) {
        let elapsed = now - refilledAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        refilledAt = now
    }

    /// The tokens an empty bucket's wait is for: `wakeInterval` worth at `rate`, at least one and
    /// at most `burst` (more would never be there).
    public var wakeBatch: Double {
        let interval = Double(Self.wakeInterval.components.attoseconds) / 1e18 + Double(Self.wakeInterval.components.seconds)
        return min(burst, max(1, (rate * interval).rounded()))
    }

    /// Takes one token and returns nil, or returns how long until `wakeBatch` tokens are there
    /// (taking nothing): once the bucket ran empty, until they are.
    public mutating func take(now: ContinuousClock.Instant) -> Duration? {
        refill(now: now)
        if refilling, tokens >= wakeBatch { refilling = false }
        if !refilling, tokens >= 1 {
            tokens -= 1
            return nil
        }
        refilling = true
        return .nanoseconds(Int64((max(0, wakeBatch - tokens) / rate * 1e9).rounded(.up)))
    }
}
