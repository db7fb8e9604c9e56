import Foundation

/// The calls per second one backend API gets: none held back until the backend first throttles,
/// then held at its quota, found from the calls it accepted.
///
/// - Unpaced: until the first throttling answer (`RESOURCE_EXHAUSTED`, HTTP 429) the API is not
///   paced at all; only the ceiling (`rate-limit`) holds, and the calls in flight are bounded
///   elsewhere (`ConcurrencyLimit`). As AWS's adaptive retry mode and Google's client-side
///   throttling do: a rate nobody measured is no reason to wait. With `Settings.start` given the
///   API is paced from the first call, at `start`, and grows by one call/s per success (doubling
///   about every second) until the first throttle.
/// - The cut: a throttling answer to a call started after the last cut sets the rate to
///   `decrease` (0.95 by default) of the rate the backend *accepted* (calls started per second
///   that were answered without throttling) since the last cut, or over the last second when the
///   last cut is more recent, or over the last `AcceptedCalls.span` when it is older, never above
///   the rate in force. Calls of that window still in flight at the cut are counted as their
///   successes come in: each adds its share to the cut rate (a first throttle can come back
///   before the calls a full quota let through just before it). Where plain AIMD cuts to 0.7 of
///   the rate and averages about 0.85 of the quota, this lands just under the quota: a quota
///   lets through its rate over any window between two throttles, whatever bursts it allows. A
///   cut never more than halves a paced rate (`deepestCut`), so a worker whose own calls were
///   few (it had little work) is not sent to the floor.
///   Answers to calls started before the cut were sent at the old rate and say nothing new, so one
///   burst of throttles cuts once, as TCP cuts once per window.
/// - The probe: after a cut a second of successes adds `increase` calls/s, plus 0.25 % of the
///   ceiling (`ceilingShare`), plus `growth` of the rate: 2 %/s (`probeGrowth`) while the rate is
///   below what the backend accepted at the cut, doubling every `probeDoubling` (5 s) of probing
///   above it, up to 100 %/s. A steady quota is probed gently (the rate passes it by a few per
///   cent before the next cut); a raised one is found in seconds (twice the quota in about 13 s).
///   The parts that do not grow with the rate are what lets workers sharing a quota even out
///   (a cut takes from each in proportion to its rate, these give each the same).
///
/// A pure value: every event carries its instant, so it is tested with an injected clock.
public struct AdaptiveRate: Sendable, Hashable {
    /// The settings: where the rate starts, its bounds, and how it moves.
    public struct Settings: Sendable, Hashable {
        /// The first rate, calls per second; nil (the default) for none: unpaced until the first
        /// throttling answer.
        public var start: Double?
        /// Never below this.
        public var floor: Double
        /// Never above this (the pipeline's `rate-limit`); nil for no ceiling.
        public var ceiling: Double?
        /// Calls per second added per second of successful calls after a cut, besides
        /// `AdaptiveRate.ceilingShare` of the ceiling and `AdaptiveRate.probeGrowth` of the rate.
        public var increase: Double
        /// The cut: the share of the accepted rate the rate is set to on throttling, in (0, 1).
        public var decrease: Double

        /// Settings; the defaults are unpaced until the first throttle, then cut to 95 % of the
        /// accepted rate and grow by 2 calls/s (plus `ceilingShare` and `probeGrowth`) per second.
        public init(start: Double? = nil, floor: Double = 1, ceiling: Double? = nil, increase: Double = 2, decrease: Double = 0.95) {
            self.start = start
            self.floor = floor
            self.ceiling = ceiling
            self.increase = increase
            self.decrease = decrease
        }
    }

    /// The share of the rate added per second of successes after a cut, before probing
    /// accelerates.
    public static let probeGrowth = 0.02
    /// The share of the ceiling added per second of successes after a cut.
    public static let ceilingShare = 0.0025
    /// Probing above the rate accepted at the last cut doubles its growth this often.
    public static let probeDoubling: Duration = .seconds(5)
    /// The most a cut takes off: it never more than halves a paced rate, nor an unpaced one's
    /// calls started per second.
    public static let deepestCut = 0.5
    /// The shortest window the accepted rate is measured over.
    public static let shortestWindow: Duration = .seconds(1)

    /// The settings.
    public private(set) var settings: Settings
    /// The pace in force, calls per second: while unpaced the ceiling (`.infinity` without one).
    public private(set) var rate: Double
    /// True once calls are paced: from the first call with `Settings.start`, else from the first
    /// throttle.
    public private(set) var isPaced: Bool
    /// The rate the backend accepted, measured at the last cut; nil before the first throttle.
    public private(set) var acceptedAtCut: Double?
    /// When the rate was last cut.
    public private(set) var lastCut: ContinuousClock.Instant?
    /// Throttling answers seen, counted or not.
    public private(set) var throttles = 0
    /// When the rate first rose above `acceptedAtCut` since the last cut (probing for more).
    private var probingSince: ContinuousClock.Instant?
    /// The window the last cut measured, its length in seconds, and the rate before the cut:
    /// successes of calls started in it that come back after the cut raise the cut rate.
    private var cutWindow: CutWindow?

    /// What the last cut measured over.
    private struct CutWindow: Sendable, Hashable {
        /// Where the window starts (it ends at the cut).
        var start: ContinuousClock.Instant
        /// Its length, seconds.
        var seconds: Double
        /// The rate before the cut: the late successes never raise the rate past it.
        var before: Double
        /// The least the cut kept (half a paced rate): late successes raise the rate only once
        /// the accepted rate they add up to justifies more.
        var least: Double
    }
    /// The earliest start of a call answered so far: the accepted rate is never measured from
    /// before it.
    private var firstCall: ContinuousClock.Instant?
    private var accepted = AcceptedCalls()
    /// Every call started while unpaced, by its start: what an API that has accepted nothing
    /// yet was sent.
    private var attempted = AcceptedCalls()

    /// A controller: unpaced, or at `settings.start` within its bounds.
    public init(_ settings: Settings) {
        self.settings = settings
        self.isPaced = settings.start != nil
        self.rate = Self.bounded(settings.start ?? .infinity, settings)
    }

    /// The pace calls must keep, calls per second; nil while unpaced without a ceiling.
    public var pace: Double? { rate.isFinite ? rate : nil }

    /// New settings from now on (an operator moved the ceiling): the rate stays where it is,
    /// within the new bounds (an unpaced one at the new ceiling), and what was learned is kept.
    public mutating func reconfigure(_ settings: Settings) {
        self.settings = settings
        rate = Self.bounded(isPaced ? rate : .infinity, settings)
    }

    /// A call starts at `now`. Counted only while unpaced: the first cut keeps half of the calls
    /// started per second.
    public mutating func started(at now: ContinuousClock.Instant) {
        guard !isPaced else { return }
        attempted.record(at: now)
    }

    /// A call started at `startedAt` was answered without throttling at `now`.
    public mutating func succeeded(startedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        note(startedAt)
        accepted.record(at: startedAt)
        guard isPaced else { return }
        guard let acceptedAtCut, let lastCut else {
            rate = Self.bounded(rate + 1, settings)  // slow start from `start`
            return
        }
        if startedAt < lastCut {
            // Accepted in the window the cut measured, answered since: the cut's share of it.
            if let window = cutWindow, startedAt >= window.start {
                let measured = acceptedAtCut + 1 / window.seconds
                self.acceptedAtCut = measured
                rate = max(rate, min(window.before, Self.bounded(max(window.least, settings.decrease * measured), settings)))
            }
            return
        }
        if rate > acceptedAtCut, probingSince == nil { probingSince = now }
        var growth = Self.probeGrowth
        if let probingSince { growth = min(1, growth * pow(2, (now - probingSince) / Self.probeDoubling)) }
        let perSecond = settings.increase + Self.ceilingShare * (settings.ceiling ?? 0) + growth * rate
        rate = Self.bounded(rate + perSecond / rate, settings)
    }

    /// A call started at `startedAt` was throttled (answered `RESOURCE_EXHAUSTED` or 429) at `now`.
    /// Returns true when this cut the rate.
    @discardableResult
    public mutating func throttled(startedAt: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
        note(startedAt)
        throttles += 1
        if let lastCut, startedAt < lastCut { return false }
        let window = measuredWindow(now: now)
        let seconds = (now - window) / .seconds(1)
        let measured = Double(accepted.count(from: window, to: now)) / seconds
        // Never more than halved: a paced rate keeps half of itself; an unpaced one (its rate
        // the ceiling or infinite) half of the calls it started per second, so a worker whose
        // first answers are all throttles (a quota others fill) does not fall to its floor.
        let least = (isPaced ? rate : Double(attempted.count(from: window, to: now)) / seconds) * Self.deepestCut
        let cut = min(rate, max(settings.decrease * measured, least))
        cutWindow = CutWindow(start: window, seconds: seconds, before: rate, least: least)
        rate = Self.bounded(cut, settings)
        isPaced = true
        acceptedAtCut = measured
        lastCut = now
        probingSince = nil
        return true
    }

    /// Calls per second started and answered without throttling since the last cut (before the
    /// first one: since the first call), over at least `shortestWindow` and at most
    /// `AcceptedCalls.span`.
    public func acceptedRate(now: ContinuousClock.Instant) -> Double {
        let start = measuredWindow(now: now)
        return Double(accepted.count(from: start, to: now)) / ((now - start) / .seconds(1))
    }

    /// Where the window the accepted rate is measured over starts.
    private func measuredWindow(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        max(now - AcceptedCalls.span, min(lastCut ?? firstCall ?? now, now - Self.shortestWindow))
    }

    private mutating func note(_ startedAt: ContinuousClock.Instant) {
        firstCall = min(firstCall ?? startedAt, startedAt)
    }

    private static func bounded(_ rate: Double, _ settings: Settings) -> Double {
        min(max(rate, settings.floor), settings.ceiling ?? .infinity)
    }
}
