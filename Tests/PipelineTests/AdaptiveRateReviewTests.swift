import Testing

@testable import Pipeline

/// Issue 33's review: late successes never lift a cut past what the accepted rate justifies, and a
/// first answer that is all throttles does not drop an unpaced API to its floor.
@Suite("Adaptive rate: late successes after a held cut, a start into a full quota")
struct AdaptiveRateReviewTests {
    let t0 = ContinuousClock.now

    @Test("a cut held at half the rate is not raised by the late successes of its window while they justify less")
    func lateSuccessesAfterAHeldCut() {
        var rate = AdaptiveRate(.init(start: 1_000, ceiling: 3_000))
        // 200 calls in the first second, answered at once: slow start takes the rate to 1,200.
        for n in 0..<200 { rate.succeeded(startedAt: t0 + .milliseconds(5 * n), now: t0 + .milliseconds(5 * n) + .microseconds(1)) }
        #expect(rate.rate == 1_200)
        rate.throttled(startedAt: t0 + .milliseconds(999), now: t0 + .seconds(1))
        #expect(rate.rate == 600, "0.95 × 200/s is 190: the cut is held at half of 1,200")
        // 200 more calls of the measured second come back after the cut: 400/s accepted, of which
        // 0.95 is 380, still below the half the cut kept.
        for n in 0..<200 { rate.succeeded(startedAt: t0 + .milliseconds(5 * n) + .microseconds(2), now: t0 + .seconds(1) + .milliseconds(n)) }
        #expect(rate.rate == 600, "late successes raise the measurement, not the rate past it: \(rate.rate)")
        #expect(abs((rate.acceptedAtCut ?? 0) - 400) < 0.01)
        // Enough of them to justify more than the half: the rate follows the measurement.
        for n in 0..<400 { rate.succeeded(startedAt: t0 + .microseconds(n), now: t0 + .seconds(1) + .milliseconds(300)) }
        #expect(abs(rate.rate - 760) < 0.01, "0.95 × 800/s: \(rate.rate)")
    }

    @Test("an unpaced API whose first answers are all throttles paces at half the calls it started per second, not at its floor")
    func firstAnswersAllThrottled() {
        var rate = AdaptiveRate(.init(ceiling: 500))
        for n in 0..<32 { rate.started(at: t0 + .microseconds(n)) }
        for n in 0..<32 { rate.throttled(startedAt: t0 + .microseconds(n), now: t0 + .milliseconds(20)) }
        #expect(rate.isPaced)
        #expect(rate.rate == 16, "32 calls started in the (at least one-second) window, halved: \(rate.rate)")
        var paced = AdaptiveRate(.init(start: 400, ceiling: 500))
        paced.throttled(startedAt: t0, now: t0 + .milliseconds(20))
        #expect(paced.rate == 200, "a paced rate is still halved at most")
    }
}
