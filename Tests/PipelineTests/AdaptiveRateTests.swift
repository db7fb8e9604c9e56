import Pipeline
import Testing

/// The adaptive rate alone, with an injected clock.
@Suite("Adaptive rate: slow start, additive increase, multiplicative decrease, floor and ceiling")
struct AdaptiveRateTests {
    let t0 = ContinuousClock.now

    @Test("slow start adds one call/s per success until the first throttle; then each second of successes adds `increase`")
    func increase() {
        var rate = AdaptiveRate(.init(start: 10, floor: 1, ceiling: nil, increase: 2, decrease: 0.5))
        for _ in 0..<10 { rate.succeeded(startedAt: t0) }
        #expect(rate.rate == 20, "slow start: +1 per successful call")
        let cut = rate.throttled(startedAt: t0, now: t0 + .seconds(1))
        #expect(cut)
        #expect(rate.rate == 10 && rate.threshold == 10)
        // A second's worth of calls at ~10/s adds about `increase` = 2 calls/s.
        for _ in 0..<10 { rate.succeeded(startedAt: t0 + .seconds(2)) }
        #expect(abs(rate.rate - 12) < 0.2, "\(rate.rate)")
    }

    @Test("one burst of throttles cuts once: answers to calls sent before the cut say nothing new")
    func oneCutPerBurst() {
        var rate = AdaptiveRate(.init(start: 40, floor: 1, ceiling: nil, increase: 2, decrease: 0.7))
        let first = rate.throttled(startedAt: t0, now: t0 + .milliseconds(10))
        #expect(first)
        #expect(rate.rate == 28)
        for i in 0..<20 {
            let cutAgain = rate.throttled(startedAt: t0 + .milliseconds(i % 10), now: t0 + .milliseconds(20))
            #expect(!cutAgain)
        }
        #expect(rate.rate == 28 && rate.throttles == 21)
        let later = rate.throttled(startedAt: t0 + .milliseconds(30), now: t0 + .milliseconds(40))
        #expect(later, "a call sent after the cut counts")
        #expect(abs(rate.rate - 19.6) < 1e-9)
    }

    @Test("never below the floor, never above the ceiling (rate-limit), the start clamped into them")
    func bounds() {
        var rate = AdaptiveRate(.init(start: 500, floor: 2, ceiling: 50, increase: 10, decrease: 0.1))
        #expect(rate.rate == 50, "the start is clamped to the ceiling")
        for _ in 0..<100 { rate.succeeded(startedAt: t0) }
        #expect(rate.rate == 50)
        for i in 0..<10 { rate.throttled(startedAt: t0 + .seconds(i), now: t0 + .seconds(i)) }
        #expect(rate.rate == 2, "the floor holds")
    }
}
