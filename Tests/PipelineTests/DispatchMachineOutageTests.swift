import InstanceAPI
import Testing
import WireJSON

@testable import Pipeline

/// A failure of the whole system that is not a job's own is not charged before the breaker opens
/// either (the simulation's outage windows: work read at an outage's start was dead-lettered on
/// its first failure with `max-attempts: 1`); but one API failing for everyone while others answer
/// may never open the one breaker (the review), so those retries back off more each time and end
/// at `max-elapsed`.
@Suite("Dispatch machine: failures of the whole system before the breaker opens")
struct DispatchMachineOutageTests {
    let t0 = ContinuousClock.now

    @Test("uncharged retries before the breaker opens back off more each time and end at max-elapsed, reporting every attempt")
    func unchargedRetriesEnd() throws {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .milliseconds(10), concurrency: 4,
            retry: RetryPolicy(maxAttempts: 1, initialBackoff: .seconds(1), maxBackoff: .seconds(30), maxElapsed: .seconds(120)),
            breakerThreshold: 1_000, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.adaptiveRate.start = 1_000
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 3))
        let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: nil)
        var actions = machine.add(PipelineRequest(id: "d", op: .installationsDelete, target: .subject("s"), items: ["fid"]), handle: RequestHandle(0), now: t0)
        var now = t0
        var waits: [Duration] = []
        var attempts = 0
        var settled: [ItemSettlement] = []
        while settled.isEmpty, attempts < 100 {
            if let job = actions.lazy.compactMap({ if case .start(let job) = $0 { job } else { nil } }).first {
                attempts += 1
                now += .milliseconds(50)
                actions = machine.finished(jobID: job.id, .failed(unavailable), now: now)
            } else {
                let timer = try #require(actions.lazy.compactMap { if case .setTimer(let at) = $0 { at } else { nil } }.last, "nothing asked for")
                waits.append(timer - now)
                now = max(now, timer)
                actions = machine.timerFired(now: now)
            }
            settled = actions.flatMap { action -> [ItemSettlement] in if case .settle(let items) = action { items } else { [] } }
        }
        #expect(attempts > 1, "max-attempts 1 ends nothing before the breaker opens")
        #expect(attempts < 30, "\(attempts) attempts in \(now - t0): the backoff did not grow")
        #expect(waits.dropFirst().contains { $0 > .seconds(1) }, "every wait within the first backoff: \(waits)")
        let item = try #require(settled.first)
        #expect(item.answer.result.code == .unavailable && item.attempts == attempts, "\(item.answer.result.code), \(item.attempts) of \(attempts)")
        #expect(now - t0 >= .seconds(120), "ended before max-elapsed: \(now - t0)")
    }
}
