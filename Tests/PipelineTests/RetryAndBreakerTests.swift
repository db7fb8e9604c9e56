import InstanceAPI
import Pipeline
import Testing

@Suite("Retry policy and circuit breaker")
struct RetryAndBreakerTests {
    @Test("full jitter stays under the exponential cap, never under Retry-After, never over the max")
    func backoff() {
        let policy = RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100), maxBackoff: .seconds(2), maxElapsed: .seconds(60))
        var random = SystemRandomNumberGenerator()
        for attempts in 1...10 {
            let cap = min(Duration.milliseconds(100) * (1 << (attempts - 1)), .seconds(2))
            for _ in 0..<200 {
                let delay = policy.delay(afterAttempts: attempts, retryAfter: nil, using: &random)
                #expect(delay >= .zero && delay <= cap)
            }
            #expect(policy.delay(afterAttempts: attempts, retryAfter: .milliseconds(1_500), using: &random) >= .milliseconds(1_500))
            #expect(policy.delay(afterAttempts: attempts, retryAfter: .seconds(600), using: &random) == .seconds(2))
        }
        let spread = Set((0..<100).map { _ in policy.delay(afterAttempts: 3, retryAfter: nil, using: &random) })
        #expect(spread.count > 50, "delays are jittered")
    }

    @Test("the budget ends at max attempts or max elapsed")
    func budget() {
        let policy = RetryPolicy(maxAttempts: 3, maxElapsed: .seconds(10))
        #expect(policy.allowsRetry(attemptsMade: 2, elapsed: .seconds(1)))
        #expect(!policy.allowsRetry(attemptsMade: 3, elapsed: .seconds(1)))
        #expect(!policy.allowsRetry(attemptsMade: 1, elapsed: .seconds(10)))
    }

    @Test("systemic failures open at once; others after the threshold; a probe closes or doubles the cooldown")
    func breaker() {
        let t0 = ContinuousClock.now
        var breaker = CircuitBreaker(threshold: 3, initialCooldown: .seconds(1), maxCooldown: .seconds(3))
        let unavailable = InstanceAPIError.serverError(api: .batchAdd, status: 503, message: "", retryAfter: nil)
        breaker.recordFailure(unavailable, now: t0)
        breaker.recordFailure(unavailable, now: t0)
        #expect(breaker.permission(now: t0) == .call, "two in a row do not open it")
        // Answered more than a cooldown before the failures that follow: not a recent success.
        breaker.recordSuccess(now: t0 - .seconds(2))
        breaker.recordFailure(unavailable, now: t0)
        breaker.recordFailure(unavailable, now: t0)
        #expect(breaker.permission(now: t0) == .call, "a success reset the count")
        breaker.recordFailure(unavailable, now: t0)
        #expect(breaker.permission(now: t0) == .wait(until: t0 + .seconds(1)))
        #expect(breaker.permission(now: t0 + .seconds(1)) == .probe)
        #expect(breaker.permission(now: t0 + .seconds(1)) != .probe, "only one probe at a time")
        breaker.recordFailure(unavailable, now: t0 + .seconds(1), probe: true)
        #expect(breaker.permission(now: t0 + .seconds(2)) == .wait(until: t0 + .seconds(3)), "cooldown doubled")
        #expect(breaker.permission(now: t0 + .seconds(3)) == .probe)
        breaker.recordFailure(unavailable, now: t0 + .seconds(3), probe: true)
        #expect(breaker.state == .open(until: t0 + .seconds(6), cooldown: .seconds(3)), "capped at the max")
        #expect(breaker.permission(now: t0 + .seconds(6)) == .probe)
        breaker.recordSuccess(probe: true, now: t0 + .seconds(6))
        #expect(breaker.permission(now: t0 + .seconds(6)) == .call)

        var fresh = CircuitBreaker(threshold: 5)
        fresh.recordFailure(.unauthenticated(api: .batchAdd, message: "401"), now: t0)
        #expect(fresh.permission(now: t0) != .call, "credentials refused open it at once")
    }

    @Test("a burst recorded successes first, then failures, does not open it while a success is recent; a backend down for everyone still does")
    func burstsOfAnswers() {
        let t0 = ContinuousClock.now
        var breaker = CircuitBreaker(threshold: 3, initialCooldown: .seconds(1), maxCooldown: .seconds(8))
        let unavailable = InstanceAPIError.serverError(api: .fcmSubscribe, status: 503, message: "", retryAfter: nil)
        // One burst of concurrent answers, all in the same few milliseconds: the worker recorded
        // its successes first and its five failures after them.
        for offset in 0..<5 { breaker.recordSuccess(now: t0 + .milliseconds(offset)) }
        for offset in 5..<10 { breaker.recordFailure(unavailable, now: t0 + .milliseconds(offset)) }
        #expect(breaker.isClosed, "five failures in a row, but successes answered alongside them")
        #expect(breaker.state == .closed(consecutiveFailures: 5))
        // Still within a cooldown of the latest success: not down for everyone.
        breaker.recordFailure(unavailable, now: t0 + .milliseconds(900))
        #expect(breaker.isClosed)
        // No success for a cooldown: the next failure opens it.
        breaker.recordFailure(unavailable, now: t0 + .seconds(1) + .milliseconds(5))
        #expect(breaker.state == .open(until: t0 + .seconds(2) + .milliseconds(5), cooldown: .seconds(1)))
        // A success answered after an opening proves nothing, and is not remembered as recent.
        breaker.recordSuccess(now: t0 + .seconds(1) + .milliseconds(6))
        #expect(breaker.permission(now: t0 + .seconds(2) + .milliseconds(5)) == .probe)
        breaker.recordSuccess(now: t0 + .seconds(2) + .milliseconds(8))  // not the probe: decides nothing
        breaker.recordSuccess(probe: true, now: t0 + .seconds(2) + .milliseconds(10))
        #expect(breaker.isClosed)
        for step in 1...3 { breaker.recordFailure(unavailable, now: t0 + .seconds(3) + .milliseconds(20 + step)) }
        #expect(!breaker.isClosed, "the probe's success is a second old: three failures open it again")
    }

    @Test("failures of a call's own content never open the breaker (issue 17, point 2)")
    func itemSpecificFailuresDoNotCount() {
        let t0 = ContinuousClock.now
        var breaker = CircuitBreaker(threshold: 5)
        for _ in 0..<40 {
            breaker.recordFailure(.invalidArgument(field: "token", value: "a/b", reason: "has a '/'"), now: t0)
            breaker.recordFailure(.badRequest(api: .batchAdd, message: "bad token"), now: t0)
            breaker.recordFailure(.throttled(api: .batchAdd, retryAfter: nil), now: t0)
        }
        #expect(breaker.permission(now: t0) == .call)
        #expect(breaker.isClosed)
    }

    @Test("while open, only the probe's answer decides; a late answer of an older call changes nothing")
    func onlyTheProbeDecides() {
        let t0 = ContinuousClock.now
        var breaker = CircuitBreaker(threshold: 1, initialCooldown: .seconds(1), maxCooldown: .seconds(8))
        let unavailable = InstanceAPIError.transport(api: .batchAdd, message: "connection reset by peer")
        breaker.recordFailure(unavailable, now: t0)
        breaker.recordSuccess(now: t0)
        #expect(!breaker.isClosed, "a call sent before the opening does not close it")
        #expect(breaker.permission(now: t0 + .seconds(1)) == .probe)
        #expect(breaker.permission(now: t0 + .seconds(1)) == .awaitProbe, "no timer needed while the probe is out")
        breaker.recordSuccess(now: t0 + .seconds(1))
        breaker.recordFailure(unavailable, now: t0 + .seconds(1))
        #expect(breaker.state == .probing(cooldown: .seconds(1)), "answers of other calls do not end the probe")
        breaker.recordSuccess(probe: true, now: t0 + .seconds(1))
        #expect(breaker.isClosed)
    }
}
