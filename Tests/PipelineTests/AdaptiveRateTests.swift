import Pipeline
import Testing

/// The adaptive rate alone, with an injected clock.
@Suite("Adaptive rate: slow start from a given start, the cut, the increase, floor and ceiling")
struct AdaptiveRateTests {
    let t0 = ContinuousClock.now

    // Issue 33: the cut is `decrease` of the accepted rate (here 10 calls in the second
    // measured), no deeper than half the rate; a second of successes also adds `probeGrowth` of
    // the rate besides `increase`.
    @Test("slow start from a given start adds one call/s per success until the first throttle; then each second of successes adds `increase` and 2 %")
    func increase() {
        var rate = AdaptiveRate(.init(start: 10, floor: 1, ceiling: nil, increase: 2, decrease: 0.5))
        for n in 0..<10 { rate.succeeded(startedAt: t0 + .milliseconds(n * 10), now: t0 + .milliseconds(n * 10 + 5)) }
        #expect(rate.rate == 20, "slow start: +1 per successful call")
        let cut = rate.throttled(startedAt: t0 + .milliseconds(500), now: t0 + .seconds(1))
        #expect(cut)
        #expect(rate.rate == 10 && rate.acceptedAtCut == 10, "half of 20, above 0.5 × 10 accepted")
        // A second's worth of calls at ~10/s adds about `increase` = 2 calls/s, and 2 % of 10.
        for n in 0..<10 { rate.succeeded(startedAt: t0 + .seconds(2), now: t0 + .seconds(2) + .milliseconds(n)) }
        #expect(abs(rate.rate - 12.2) < 0.2, "\(rate.rate)")
    }

    @Test("one burst of throttles cuts once: answers to calls sent before the cut say nothing new")
    func oneCutPerBurst() {
        var rate = AdaptiveRate(.init(start: 40, floor: 1, ceiling: nil, increase: 2, decrease: 0.7))
        let first = rate.throttled(startedAt: t0, now: t0 + .milliseconds(10))
        #expect(first)
        #expect(rate.rate == 20, "nothing accepted: halved (issue 33; 0.7 × the rate before)")
        for i in 0..<20 {
            let cutAgain = rate.throttled(startedAt: t0 + .milliseconds(i % 10), now: t0 + .milliseconds(20))
            #expect(!cutAgain)
        }
        #expect(rate.rate == 20 && rate.throttles == 21)
        let later = rate.throttled(startedAt: t0 + .milliseconds(30), now: t0 + .milliseconds(40))
        #expect(later, "a call sent after the cut counts")
        #expect(rate.rate == 10)
    }

    @Test("never below the floor, never above the ceiling (rate-limit), the start clamped into them")
    func bounds() {
        var rate = AdaptiveRate(.init(start: 500, floor: 2, ceiling: 50, increase: 10, decrease: 0.1))
        #expect(rate.rate == 50, "the start is clamped to the ceiling")
        for _ in 0..<100 { rate.succeeded(startedAt: t0, now: t0) }
        #expect(rate.rate == 50)
        for i in 0..<10 { rate.throttled(startedAt: t0 + .seconds(i), now: t0 + .seconds(i)) }
        #expect(rate.rate == 2, "the floor holds")
    }

    /// Workers with their own controllers and token buckets against one quota (a token bucket of
    /// one second's calls, as the emulator's), on an injected clock in 1 ms steps; returns the
    /// accepted calls and throttled attempts per second.
    private func simulate(workers: Int, quota: (Int) -> Double, seconds: Int) -> [(accepted: Int, throttled: Int)] {
        // Issue 33: the default cut (0.95 of the accepted rate), not 0.7 of the rate.
        let settings = AdaptiveRate.Settings(start: 20, floor: 1, ceiling: 100)
        var rates = (0..<workers).map { _ in AdaptiveRate(settings) }
        var buckets = rates.map { TokenBucket(rate: $0.rate, now: t0) }
        var backendTokens = quota(0)
        var inFlight: [(worker: Int, startedAt: ContinuousClock.Instant, throttled: Bool)] = []
        var perSecond = Array(repeating: (accepted: 0, throttled: 0), count: seconds)
        for step in 0..<(seconds * 1_000) {
            let now = t0 + .milliseconds(step)
            let second = step / 1_000
            backendTokens = min(max(quota(second), 1), backendTokens + quota(second) / 1_000)
            // Answers of the previous millisecond (5 ms calls would change nothing but the lag).
            for call in inFlight {
                if call.throttled {
                    rates[call.worker].throttled(startedAt: call.startedAt, now: now)
                } else {
                    rates[call.worker].succeeded(startedAt: call.startedAt, now: now)
                }
                buckets[call.worker].setRate(rates[call.worker].rate, now: now)  // paced from `start`
            }
            inFlight = []
            for worker in 0..<workers {
                while buckets[worker].take(now: now) == nil {
                    let throttled = backendTokens < 1
                    if throttled {
                        perSecond[second].throttled += 1
                    } else {
                        backendTokens -= 1
                        perSecond[second].accepted += 1
                    }
                    inFlight.append((worker, now, throttled))
                }
            }
        }
        return perSecond
    }

    @Test("an operator's new ceiling cuts the rate at once and keeps what was learned; a raised one lets it grow again")
    func reconfigure() {
        let now = ContinuousClock.now
        var rate = AdaptiveRate(AdaptiveRate.Settings(start: 50, ceiling: 100))
        rate.throttled(startedAt: now, now: now)
        #expect(rate.rate == 25 && rate.acceptedAtCut == 0, "nothing accepted: halved (issue 33)")
        rate.reconfigure(AdaptiveRate.Settings(start: 50, ceiling: 5))
        #expect(rate.rate == 5 && rate.acceptedAtCut == 0)
        rate.reconfigure(AdaptiveRate.Settings(start: 50, ceiling: 100))
        rate.succeeded(startedAt: now, now: now)
        #expect(rate.rate > 5, "it grows again")
        var unpaced = AdaptiveRate(AdaptiveRate.Settings(ceiling: 100))
        unpaced.reconfigure(AdaptiveRate.Settings(ceiling: 40))
        #expect(!unpaced.isPaced && unpaced.rate == 40, "unpaced: at the new ceiling")
        unpaced.reconfigure(AdaptiveRate.Settings())
        #expect(unpaced.pace == nil, "and without one, no pace")
    }

    @Test("several workers against one quota converge near it with few throttled attempts, and follow a change within seconds")
    func convergence() {
        for workers in [1, 3] {
            let seconds = simulate(workers: workers, quota: { _ in 40 }, seconds: 40)[10...]
            let accepted = Double(seconds.reduce(0) { $0 + $1.accepted }) / Double(seconds.count)
            let throttled = Double(seconds.reduce(0) { $0 + $1.throttled })
            let share = throttled / max(1, throttled + Double(seconds.reduce(0) { $0 + $1.accepted }))
            #expect(accepted >= 0.9 * 40 && accepted <= 40.5, "\(workers) workers: \(accepted) calls/s")
            #expect(share < 0.1, "\(workers) workers: \(share) throttled")
        }
        let changed = simulate(workers: 1, quota: { $0 < 20 ? 80 : 20 }, seconds: 35)
        let settled = changed[25...].allSatisfy { Double($0.throttled) < 0.1 * Double(max(1, $0.accepted + $0.throttled)) }
        #expect(settled, "5 s after the quota fell from 80 to 20, every second is under 10 % throttled: \(Array(changed[20...]))")
        #expect(changed[25...].allSatisfy { $0.accepted >= 15 }, "and it still uses the new quota")
    }
}
