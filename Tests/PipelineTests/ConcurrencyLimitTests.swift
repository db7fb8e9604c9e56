import InstanceAPI
import Testing
import WireJSON

@testable import Pipeline

/// Issue 33: the calls in flight per API follow rate × latency under the cap, alone with an
/// injected clock and inside the dispatch machine.
@Suite("Concurrency limit: rate × latency × headroom, between a small floor and the cap")
struct ConcurrencyLimitTests {
    let t0 = ContinuousClock.now

    @Test("before any answer the limit is the initial window; with no rate known, the window under the cap")
    func windowUntilKnown() {
        var limit = ConcurrencyLimit(cap: 1_000)
        #expect(limit.limit(rate: 3_000) == ConcurrencyLimit.initialWindow && limit.latency == nil)
        #expect(ConcurrencyLimit(cap: 8).limit(rate: 3_000) == 8, "a cap below the initial window holds")
        limit.answered(startedAt: t0, now: t0 + .milliseconds(50))
        #expect(limit.limit(rate: nil) == ConcurrencyLimit.initialWindow + 1, "unpaced without a ceiling: the window, one more per answer")
        for _ in 0..<2_000 { limit.answered(startedAt: t0, now: t0 + .milliseconds(50)) }
        #expect(limit.limit(rate: nil) == 1_000, "the window opens up to the cap, never past it")
        #expect(limit.window == 1_000)
        #expect(ConcurrencyLimit(cap: 0).cap == 1, "a cap is at least one call")
    }

    @Test("slow start: the window doubles every round trip, so 900 calls in flight at 200 ms are reached in five round trips")
    func slowStart() {
        var limit = ConcurrencyLimit(cap: 1_000)
        var now = t0
        var roundTrips = 0
        var windows: [Int] = []
        while limit.limit(rate: 3_000) < 900 {
            // Every call of the round trip is answered 200 ms after it started.
            let inFlight = limit.limit(rate: 3_000)
            windows.append(inFlight)
            for _ in 0..<inFlight { limit.answered(startedAt: now, now: now + .milliseconds(200)) }
            now += .milliseconds(200)
            roundTrips += 1
            #expect(roundTrips < 10, "the window must open")
            if roundTrips >= 10 { break }
        }
        #expect(windows == [32, 64, 128, 256, 512], "\(windows)")
        #expect(limit.limit(rate: 3_000) == 900, "then Little's law governs")
    }

    @Test("the limit follows rate × latency with 50 % headroom: 3,000/s at 200 ms needs 900 of a cap of 1,000")
    func littlesLaw() {
        var limit = ConcurrencyLimit(cap: 1_000)
        for _ in 0..<1_000 { limit.answered(startedAt: t0, now: t0 + .milliseconds(200)) }
        #expect(limit.latency == .milliseconds(200))
        #expect(limit.limit(rate: 3_000) == 900)
        #expect(limit.limit(rate: 500) == 150)
        #expect(limit.limit(rate: 10_000) == 1_000, "never above the cap")
        #expect(limit.limit(rate: 1) == 4, "never below the floor")
        #expect(ConcurrencyLimit(cap: 2).limit(rate: 0.1) == 2, "a cap below the floor is the limit")
    }

    @Test("the latency is smoothed over answers: one slow answer moves it an eighth of the way; a lasting change is followed")
    func smoothing() {
        var limit = ConcurrencyLimit(cap: 10_000)
        limit.answered(startedAt: t0, now: t0 + .milliseconds(50))
        limit.answered(startedAt: t0, now: t0 + .milliseconds(850))
        #expect(limit.latency == .milliseconds(150), "50 + (850 − 50) / 8")
        for n in 0..<100 { limit.answered(startedAt: t0 + .seconds(n), now: t0 + .seconds(n) + .milliseconds(20)) }
        let latency = limit.latency ?? .zero
        #expect(latency >= .milliseconds(20) && latency < .milliseconds(21), "\(latency)")
        #expect((90...91).contains(limit.limit(rate: 3_000)), "3,000/s × 20 ms × 1.5, the latency a little above 20 ms")
        limit.reconfigure(cap: 50)
        #expect(limit.limit(rate: 3_000) == 50, "an operator's lower cap holds at once")
    }

    @Test("in the dispatch machine an API runs no more calls than rate × latency allows, and more when the latency grows")
    func dispatchFollowsTheLimit() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.concurrency = 1_000
                $0.callsPerSecond = 100
                $0.adaptiveRate = AdaptiveRate.Settings()
            }, random: SplitMix64(seed: 33))
        // Before any answer: the initial window (32), within the ceiling's burst (100/s, a burst of 10); 20 more wait.
        var running: [CallJob] = []
        for n in 0..<30 { running += started(machine.add(deletion("d\(n)"), handle: RequestHandle(n), now: t0)) }
        #expect(running.count == 10)
        // One answer after 40 ms: 100/s × 40 ms × 1.5 = 6 calls of the API in flight; 9 run.
        var now = t0 + .milliseconds(40)
        let first = running.removeFirst()
        #expect(started(machine.finished(jobID: first.id, answers([.ok]), now: now)).isEmpty, "9 running, over the limit of 6: nothing starts")
        #expect(machine.concurrencyLimits[.deleteInstance] == 6)
        // Answers come 40 ms after their calls; the rate's slots are there, the limit holds.
        var peak = 0
        while !running.isEmpty {
            now += .milliseconds(5)
            let job = running.removeFirst()
            let new = started(machine.finished(jobID: job.id, answers([.ok]), now: now)) + started(machine.timerFired(now: now))
            running += new
            let limit = try #require(machine.concurrencyLimits[.deleteInstance])
            // A limit that fell (a shorter latency) holds back new calls; it stops none running.
            #expect(new.isEmpty || running.count <= limit, "\(running.count) running, limit \(limit)")
            #expect(machine.runningCallsPerAPI[.deleteInstance, default: 0] == running.count)
            peak = max(peak, running.count)
        }
        #expect(peak >= 5, "the limit is used, not only obeyed: \(peak)")
    }

    private func pipeline(_ adjust: (inout PipelineConfiguration) -> Void) -> PipelineConfiguration {
        var configuration = PipelineConfiguration(name: "test", requestTopic: "requests", linger: .zero, concurrency: 4)
        adjust(&configuration)
        return configuration
    }

    private func deletion(_ id: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .installationsDelete, target: .subject(nil), items: [id])
    }

    private func started(_ actions: [DispatchAction]) -> [CallJob] {
        actions.compactMap { if case .start(let job) = $0 { job } else { nil } }
    }

    private func answers(_ codes: [ResultCode]) -> CallAnswer {
        .items(RunLengthList(codes.map { ItemAnswer(ItemResult($0)) }))
    }
}
