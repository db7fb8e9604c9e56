/// How many calls of one backend API may be in flight at once: enough to carry the current rate
/// at the observed latency (Little's law: calls in flight = rate × latency), with `headroom`,
/// never more than the cap (the pipeline's `concurrency`) nor fewer than `floor`.
///
/// - The rate is the caller's: the API's paced rate, or while unpaced its ceiling; with neither
///   (unpaced, no `rate-limit`) the limit is the cap (within the window below), as it is before
///   the first answer tells the latency.
/// - Slow start, as TCP's congestion window starts: before the first answer at most
///   `initialWindow` calls go out, and each answer lets one more be in flight, so the window
///   doubles every round trip until the limit above governs. The first round trip to a quota
///   nobody measured yet is then a few dozen calls per worker, not the ceiling's whole burst:
///   three workers starting at once against a quota of 500/s had 1,153 of their first second's
///   1,641 calls throttled without it.
/// - The latency is smoothed over answered calls (start to answer), as TCP smooths its round
///   trip: each answer moves it `smoothing` of the way. Calls that got no answer (a refused
///   connection, a timeout) say nothing about it.
///
/// A pure value: every sample carries its instants, so it is tested with an injected clock.
public struct ConcurrencyLimit: Sendable, Hashable {
    /// Calls in flight beyond rate × latency: for latency's spread and the rate's bursts.
    public static let headroom = 1.5
    /// The fewest calls in flight the limit allows (or the cap, when smaller).
    public static let floor = 4
    /// The share of the way each answered call moves the smoothed latency (TCP's 1/8).
    public static let smoothing = 0.125
    /// The calls in flight before the first answer (TCP's initial window, in calls).
    public static let initialWindow = 32

    /// The most calls in flight (the pipeline's `concurrency`).
    public private(set) var cap: Int
    /// The smoothed latency of answered calls; nil before the first answer.
    public private(set) var latency: Duration?
    /// The slow-start window: `initialWindow` plus one per answer, never above the cap.
    public private(set) var window: Int

    /// A limit under `cap` (at least 1), with no latency seen yet.
    public init(cap: Int) {
        self.cap = max(1, cap)
        self.window = Self.initialWindow
    }

    /// A new cap from now on (an operator moved `concurrency`); the latency seen is kept.
    public mutating func reconfigure(cap: Int) {
        self.cap = max(1, cap)
    }

    /// A call started at `startedAt` was answered at `now` (whatever the answer said).
    public mutating func answered(startedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        window = min(window + 1, max(cap, Self.initialWindow))
        let sample = max(.zero, now - startedAt)
        guard let latency else {
            self.latency = sample
            return
        }
        self.latency = latency + (sample - latency) * Self.smoothing
    }

    /// The calls that may be in flight at once when calls go out at `rate` per second (nil: no
    /// rate is known, unpaced without a ceiling).
    public func limit(rate: Double?) -> Int {
        let opened = min(window, cap)
        guard let rate, let latency else { return opened }
        let carried = rate * (latency / .seconds(1)) * Self.headroom
        guard carried.isFinite, carried < Double(opened) else { return opened }
        return max(min(Self.floor, cap), Int(carried.rounded(.up)))
    }
}
