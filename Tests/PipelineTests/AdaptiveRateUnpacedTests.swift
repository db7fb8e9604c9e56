import InstanceAPI
import Testing

@testable import Pipeline

/// Issue 33: the adaptive rate unpaced until the first throttle, then cut to what the quota
/// accepted and probing gently; alone and driving simulated workers against a quota, with an
/// injected clock.
@Suite("Adaptive rate: unpaced from the first call, the cut at the accepted rate, the quota reached")
struct AdaptiveRateUnpacedTests {
    let t0 = ContinuousClock.now

    @Test("before the first throttle nothing is paced: no bucket without a ceiling, the ceiling's with one")
    func unpacedUntilTheFirstThrottle() {
        var rate = AdaptiveRate(.init())
        #expect(!rate.isPaced && rate.pace == nil && rate.rate == .infinity)
        for n in 0..<1_000 { rate.succeeded(startedAt: t0 + .microseconds(n), now: t0 + .microseconds(n) + .milliseconds(20)) }
        #expect(!rate.isPaced && rate.pace == nil, "successes alone never pace")
        var pacing = APIPacing(.init())
        let unpaced = (0..<10_000).filter { pacing.admit(.fcmSubscribe, now: t0 + .nanoseconds($0)) == nil }.count
        #expect(unpaced == 10_000, "10,000 calls in 10 µs, none held back")
        var ceiled = APIPacing(.init(ceiling: 100))
        #expect(ceiled.pace(of: .fcmSubscribe) == 100)
        let admitted = (0..<1_000).filter { ceiled.admit(.fcmSubscribe, now: t0 + .milliseconds($0)) == nil }.count
        #expect(admitted >= 100 && admitted <= 111, "the ceiling holds: 100/s over a second plus its burst of 10, got \(admitted)")
    }

    @Test("the first throttle cuts to 95 % of the calls accepted per second since the first call, measured over a second at least")
    func firstCut() {
        var rate = AdaptiveRate(.init(ceiling: 3_000))
        // 2 s of calls, 600 a second accepted (answered 20 ms after they start).
        for n in 0..<1_200 {
            let start = t0 + .microseconds(Int64(n) * 1_666)
            rate.succeeded(startedAt: start, now: start + .milliseconds(20))
        }
        let now = t0 + .seconds(2)
        #expect(abs(rate.acceptedRate(now: now) - 600) < 15, "\(rate.acceptedRate(now: now))")
        let cut = rate.throttled(startedAt: now - .milliseconds(20), now: now)
        #expect(cut && rate.isPaced && abs(rate.rate - 570) < 15, "\(rate.rate)")
        #expect(abs((rate.acceptedAtCut ?? 0) - 600) < 15)
        // A throttle 200 ms after a start still measures over a whole second: the burst a full
        // quota let through at the start is not taken for its rate.
        var early = AdaptiveRate(.init())
        for n in 0..<600 { early.succeeded(startedAt: t0, now: t0 + .microseconds(Int64(n) * 333)) }
        early.throttled(startedAt: t0, now: t0 + .milliseconds(200))
        #expect(abs(early.rate - 570) < 1, "\(early.rate)")
    }

    @Test("later cuts measure since the last cut (a quota lets its rate through between two throttles), once per window, never above the rate")
    func laterCuts() {
        var rate = AdaptiveRate(.init(ceiling: 10_000))
        rate.throttled(startedAt: t0, now: t0)
        #expect(rate.rate == 1, "nothing accepted yet: the floor")
        // 10 s of calls accepted, 500 a second after a burst of 1,000 in the first 100 ms (a
        // refilled bucket): 5,500 over 10 s.
        for n in 0..<1_000 {
            let start = t0 + .microseconds(Int64(n) * 100)
            rate.succeeded(startedAt: start, now: start + .milliseconds(20))
        }
        for n in 0..<4_500 {
            let start = t0 + .milliseconds(100) + .microseconds(Int64(n) * 2_200)
            rate.succeeded(startedAt: start, now: start + .milliseconds(20))
        }
        let now = t0 + .seconds(10)
        #expect(abs(rate.acceptedRate(now: now) - 550) < 10)
        let before = rate.rate
        let cut = rate.throttled(startedAt: now - .milliseconds(20), now: now)
        #expect(cut)
        #expect(rate.rate == min(before, max(0.95 * rate.acceptedAtCut!, before / 2)), "never above the rate in force: \(before) → \(rate.rate)")
        let again = rate.throttled(startedAt: now - .milliseconds(10), now: now + .milliseconds(5))
        #expect(!again, "sent before the cut: says nothing new")
        #expect(rate.throttles == 3)
    }

    @Test("calls of the measured window still in flight at the cut add their share as their successes come in")
    func lateSuccesses() {
        var rate = AdaptiveRate(.init(ceiling: 3_000))
        // A full quota let 500 calls through at once; the first throttle comes back before them.
        for n in 0..<20 { rate.succeeded(startedAt: t0, now: t0 + .milliseconds(15) + .microseconds(n)) }
        rate.throttled(startedAt: t0, now: t0 + .milliseconds(16))
        #expect(abs(rate.rate - 19) < 0.01, "\(rate.rate)")
        for n in 0..<480 { rate.succeeded(startedAt: t0 + .microseconds(n), now: t0 + .milliseconds(20)) }
        #expect(abs(rate.rate - 475) < 0.01, "the cut counts all 500: \(rate.rate)")
        #expect(abs((rate.acceptedAtCut ?? 0) - 500) < 0.01)
        rate.succeeded(startedAt: t0 + .milliseconds(17), now: t0 + .milliseconds(37))
        #expect(rate.rate > 475 && rate.rate < 476, "a call started after the cut probes: \(rate.rate)")
    }

    @Test("a cut never more than halves a paced rate, even when the worker had little work; floor and ceiling hold")
    func deepestCut() {
        var rate = AdaptiveRate(.init(start: 400, floor: 2, ceiling: 1_000))
        #expect(rate.isPaced && rate.rate == 400)
        rate.succeeded(startedAt: t0, now: t0 + .milliseconds(10))
        rate.throttled(startedAt: t0 + .seconds(1), now: t0 + .seconds(2))
        #expect(rate.rate == 200.5, "one call accepted in the window: halved, not cut to 1")
        for n in 0..<20 { rate.throttled(startedAt: t0 + .seconds(3 + n), now: t0 + .seconds(3 + n)) }
        #expect(rate.rate == 2, "the floor")
        rate.reconfigure(.init(start: 400, floor: 2, ceiling: 1))
        #expect(rate.rate == 1, "an operator's ceiling below the floor wins")
    }

    @Test("after a cut the probe adds about 2 % of the rate a second, and doubles that every 5 s above what was accepted")
    func probe() {
        var rate = AdaptiveRate(.init(increase: 0.01))
        for n in 0..<1_000 { rate.succeeded(startedAt: t0, now: t0 + .milliseconds(n)) }
        rate.throttled(startedAt: t0 + .seconds(1), now: t0 + .seconds(1))
        #expect(abs(rate.rate - 950) < 1)
        // One second of calls at the rate: +2 %.
        var now = t0 + .seconds(1)
        func second(_ rate: inout AdaptiveRate) {
            let calls = Int(rate.rate)
            for n in 0..<calls { rate.succeeded(startedAt: now, now: now + .seconds(1) * (Double(n) / Double(calls))) }
            now += .seconds(1)
        }
        second(&rate)
        #expect(abs(rate.rate / 950 - 1.02) < 0.002, "\(rate.rate)")
        // Above the accepted rate (1,000/s) the growth doubles every 5 s: 20 s later it has found
        // a quota far above.
        for _ in 0..<20 { second(&rate) }
        #expect(rate.rate > 2_000, "\(rate.rate)")
    }

    @Test(
        "simulated workers reach ≥ 0.95 of a quota below the ceiling with ≤ 3 % throttled, sharing it without starving one",
        arguments: [(1, true), (3, true), (1, false), (3, false)])
    func quotaBelowTheCeiling(workers: Int, retryAfter: Bool) async {
        let simulation = SharedQuotaSimulation(
            workers: workers, settings: AdaptiveRate.Settings(ceiling: 3_000), cap: 1_000, latency: .milliseconds(20), jitter: .milliseconds(5))
        let seconds = await simulation.secondsOnOwnThread(quota: { _ in 500 }, retryAfter: retryAfter, seconds: 60)
        let accepted = seconds.reduce(0) { $0 + $1.accepted }
        let throttled = seconds.reduce(0) { $0 + $1.throttled }
        let share = Double(accepted) / (500 * 60)
        let throttledShare = Double(throttled) / Double(accepted + throttled)
        #expect(share >= 0.95, "\(workers) worker(s), Retry-After \(retryAfter): \(share) of the quota")
        #expect(throttledShare <= 0.03, "\(workers) worker(s), Retry-After \(retryAfter): \(throttledShare) throttled")
        let byWorker = (0..<workers).map { worker in seconds.reduce(0) { $0 + $1.acceptedBy[worker] } }
        #expect(byWorker.allSatisfy { Double($0) >= 0.5 * Double(accepted) / Double(workers) }, "no worker starves: \(byWorker)")
        print(
            "quota 500, \(workers) worker(s), Retry-After \(retryAfter): \(share) of the quota, \(throttledShare) throttled, by worker \(byWorker); throttled per second \(seconds.map(\.throttled))"
        )
    }

    @Test(
        "at a quota equal to the ceiling (3,000/s), 50 and 200 ms: ≥ 0.95 of it with ≤ 2 % throttled, and never more than the cap in flight",
        arguments: [50, 200])
    func quotaAtTheCeiling(milliseconds: Int) async {
        let simulation = SharedQuotaSimulation(
            workers: 1, settings: AdaptiveRate.Settings(ceiling: 3_000), cap: 1_000, latency: .milliseconds(Int64(milliseconds)),
            jitter: .milliseconds(Int64(milliseconds / 2)))
        let seconds = await simulation.secondsOnOwnThread(quota: { _ in 3_000 }, retryAfter: true, seconds: 60)
        let accepted = seconds.reduce(0) { $0 + $1.accepted }
        let throttled = seconds.reduce(0) { $0 + $1.throttled }
        let share = Double(accepted) / (3_000 * 60)
        let throttledShare = Double(throttled) / Double(accepted + throttled)
        #expect(share >= 0.95, "\(milliseconds) ms: \(share) of the quota")
        #expect(throttledShare <= 0.02, "\(milliseconds) ms: \(throttledShare) throttled")
        let peak = seconds.map { $0.peakInFlight[0] }.max() ?? 0
        #expect(peak <= 1_000, "never more than the cap in flight: \(peak)")
        print("quota 3000 = ceiling, \(milliseconds) ms: \(share) of the quota, \(throttledShare) throttled, peak in flight \(peak)")
    }

    @Test("a raised quota is found: 500 → 1,000 calls/s at 20 s, and the last 20 s of the minute run at ≥ 0.9 of it")
    func raisedQuota() async {
        let simulation = SharedQuotaSimulation(
            workers: 1, settings: AdaptiveRate.Settings(ceiling: 3_000), cap: 1_000, latency: .milliseconds(20), jitter: .milliseconds(5))
        let seconds = await simulation.secondsOnOwnThread(quota: { $0 < 20 ? 500 : 1_000 }, retryAfter: true, seconds: 60)
        let late = seconds[40...].reduce(0) { $0 + $1.accepted }
        #expect(Double(late) >= 0.9 * 1_000 * 20, "\(late) accepted in the last 20 s: \(seconds.map(\.accepted))")
        print("raised quota: per second \(seconds.map(\.accepted))")
    }

    @Test("a lowered quota is followed: 1,000 → 300 calls/s at 20 s; 5 s later every second is under 10 % throttled")
    func loweredQuota() async {
        let simulation = SharedQuotaSimulation(
            workers: 1, settings: AdaptiveRate.Settings(ceiling: 3_000), cap: 1_000, latency: .milliseconds(20), jitter: .milliseconds(5))
        let seconds = await simulation.secondsOnOwnThread(quota: { $0 < 20 ? 1_000 : 300 }, retryAfter: false, seconds: 40)
        #expect(
            seconds[25...].allSatisfy { Double($0.throttled) < 0.1 * Double($0.accepted + $0.throttled) },
            "\(seconds[18...].map { ($0.accepted, $0.throttled) })")
        #expect(seconds[25...].allSatisfy { $0.accepted >= 270 }, "and uses the new quota: \(seconds[18...].map(\.accepted))")
    }

    @Test("pipeline files: unpaced unless adaptive-rate gives a start; decrease is a share of the accepted rate up to 0.99; a floor above the start is named")
    func configuration() throws {
        let plain = try PipelineFile.parse("request-topic: r\nrate-limit: 3000\n", file: "r.yaml", name: "r")
        #expect(plain.adaptiveRate.start == nil && plain.adaptiveRate.decrease == 0.95)
        #expect(AdaptiveRate(plain.rateSettings).rate == 3_000 && !AdaptiveRate(plain.rateSettings).isPaced)
        let paced = try PipelineFile.parse("request-topic: r\nadaptive-rate: { start: 200, decrease: 0.99 }\n", file: "r.yaml", name: "r")
        #expect(paced.adaptiveRate.start == 200 && paced.adaptiveRate.decrease == 0.99 && AdaptiveRate(paced.rateSettings).isPaced)
        #expect(throws: PipelineFileError(file: "r.yaml", key: "adaptive-rate.floor", reason: "5.0 must not be above start (2.0)")) {
            try PipelineFile.parse("request-topic: r\nadaptive-rate: { start: 2, floor: 5 }\n", file: "r.yaml", name: "r")
        }
        #expect(throws: PipelineFileError.self) { try PipelineFile.parse("request-topic: r\nadaptive-rate: { decrease: 1 }\n", file: "r.yaml", name: "r") }
        let floorOnly = try PipelineFile.parse("request-topic: r\nadaptive-rate: { floor: 5 }\n", file: "r.yaml", name: "r")
        #expect(floorOnly.adaptiveRate.floor == 5, "a floor needs no start")
    }
}
