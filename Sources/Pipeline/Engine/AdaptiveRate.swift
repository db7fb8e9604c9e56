/// The calls per second one backend API gets, found the way TCP finds a link's capacity: grow
/// while calls succeed, cut on a throttling answer, never above the ceiling or below the floor.
///
/// - Slow start: below the threshold (unknown at first) each successful call adds one call/s,
///   so the rate doubles about every second until the first throttle.
/// - Additive increase: above it, each successful call adds `increase / rate`, so a second of
///   successes adds `increase` calls/s.
/// - Multiplicative decrease: a throttling answer (`RESOURCE_EXHAUSTED`, HTTP 429) to a call
///   started after the last cut multiplies the rate by `decrease` and sets the threshold there.
///   Answers to calls started before the cut were sent at the old rate and say nothing new, so one
///   burst of throttles cuts once, as TCP cuts once per window.
///
/// A pure value: every event carries its instant, so it is tested with an injected clock.
public struct AdaptiveRate: Sendable, Hashable {
    /// The settings: where the rate starts, its bounds, and how fast it moves.
    public struct Settings: Sendable, Hashable {
        /// The first rate, calls per second.
        public var start: Double
        /// Never below this.
        public var floor: Double
        /// Never above this (the pipeline's `rate-limit`); nil for no ceiling.
        public var ceiling: Double?
        /// Calls per second added per second of successful calls.
        public var increase: Double
        /// The factor applied on throttling, in (0, 1).
        public var decrease: Double

        /// Settings; the defaults start at 20 calls/s, grow by 2 calls/s per second and cut by 30 %.
        public init(start: Double = 20, floor: Double = 1, ceiling: Double? = nil, increase: Double = 2, decrease: Double = 0.7) {
            self.start = start
            self.floor = floor
            self.ceiling = ceiling
            self.increase = increase
            self.decrease = decrease
        }
    }

    /// The settings.
    public private(set) var settings: Settings
    /// The current rate, calls per second.
    public private(set) var rate: Double
    /// Where slow start ends (the rate after the last cut); nil before the first throttle.
    public private(set) var threshold: Double?
    /// When the rate was last cut.
    public private(set) var lastCut: ContinuousClock.Instant?
    /// Throttling answers seen, counted or not.
    public private(set) var throttles = 0

    /// A controller at `settings.start`, within its bounds.
    public init(_ settings: Settings) {
        self.settings = settings
        self.rate = Self.bounded(settings.start, settings)
    }

    /// New settings from now on (an operator moved the ceiling): the rate stays where it is,
    /// within the new bounds, and the learned threshold is kept.
    public mutating func reconfigure(_ settings: Settings) {
        self.settings = settings
        rate = Self.bounded(rate, settings)
    }

    /// A call started at `startedAt` was answered without throttling.
    public mutating func succeeded(startedAt: ContinuousClock.Instant) {
        if let threshold, rate >= threshold {
            rate += settings.increase / rate
        } else {
            rate += 1
        }
        rate = Self.bounded(rate, settings)
    }

    /// A call started at `startedAt` was throttled (answered `RESOURCE_EXHAUSTED` or 429) at `now`.
    /// Returns true when this cut the rate.
    @discardableResult
    public mutating func throttled(startedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
        throttles += 1
        if let lastCut, startedAt < lastCut { return false }
        rate = Self.bounded(rate * settings.decrease, settings)
        threshold = rate
        lastCut = now
        return true
    }

    private static func bounded(_ rate: Double, _ settings: Settings) -> Double {
        min(max(rate, settings.floor), settings.ceiling ?? .infinity)
    }
}
