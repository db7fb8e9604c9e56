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

    /// The third review: nothing checked the threshold's wiring. One API down for everyone while
    /// another answers: each answer resets the breaker's count, so it stays closed; the down
    /// API's job goes uncharged for fewer failures than the threshold, then is charged and ends.
    @Test("one API down while another answers: uncharged for threshold failures, then charged, so its job ends")
    func chargedPastTheThreshold() throws {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .zero, concurrency: 4,
            retry: RetryPolicy(maxAttempts: 1, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(600)),
            breakerThreshold: 3, breakerCooldown: .milliseconds(10), breakerMaxCooldown: .seconds(8))
        configuration.adaptiveRate.start = 1_000
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 11))
        let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: nil)
        func started(_ actions: [DispatchAction]) -> [CallJob] { actions.compactMap { if case .start(let job) = $0 { job } else { nil } } }
        var actions = machine.add(PipelineRequest(id: "d", op: .installationsDelete, target: .subject("s"), items: ["fid"]), handle: RequestHandle(0), now: t0)
        var now = t0
        var failures = 0
        var settled: [ItemSettlement] = []
        for round in 0..<50 where settled.isEmpty {
            // Another API answers between the deletion's failures: the breaker stays closed.
            let info = PipelineRequest(id: "i\(round)", op: .instancesInfo, target: .info(details: false), items: ["tok\(round)"])
            let answered = started(machine.add(info, handle: RequestHandle(1 + round), now: now))
            for job in answered { actions += machine.finished(jobID: job.id, .items(RunLengthList([ItemAnswer(.ok)])), now: now) }
            if let deletion = started(actions).first(where: { $0.op == .installationsDelete }) {
                failures += 1
                now += .milliseconds(5)
                actions = machine.finished(jobID: deletion.id, .failed(unavailable), now: now)
                settled = actions.flatMap { action -> [ItemSettlement] in if case .settle(let items) = action { items } else { [] } }
            } else {
                now += .seconds(1)
                actions = machine.timerFired(now: now)
            }
            #expect(machine.breakerClosed, "round \(round)")
        }
        #expect(failures == 4, "uncharged 3 times (the threshold), then charged: max-attempts 1 ends it; \(failures) failures")
        #expect(settled.first?.answer.result.code == .unavailable && settled.first?.attempts == 4)
    }

    /// The second review: jobs backing off came back as ordinary retries, so with the breaker
    /// open each was the probe in turn ahead of new work, doubling the cooldown, reading paused.
    @Test("a job backing off from a failure of the whole system comes back a suspect once the breaker is open: new work is the probe")
    func backoffComesBackSuspect() throws {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .zero, concurrency: 4,
            retry: RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100), maxBackoff: .seconds(30), maxElapsed: .seconds(600)),
            breakerThreshold: 2, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(8))
        configuration.adaptiveRate.start = 1_000
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 9))
        let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: nil)
        func deletion(_ id: String) -> PipelineRequest { PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: [id]) }
        func started(_ actions: [DispatchAction]) -> [CallJob] { actions.compactMap { if case .start(let job) = $0 { job } else { nil } } }
        let first = try #require(started(machine.add(deletion("a"), handle: RequestHandle(0), now: t0)).first)
        let second = try #require(started(machine.add(deletion("b"), handle: RequestHandle(1), now: t0)).first)
        _ = machine.finished(jobID: first.id, .failed(unavailable), now: t0 + .milliseconds(10))
        #expect(machine.breakerClosed, "one failure: backing off, uncharged")
        _ = machine.finished(jobID: second.id, .failed(unavailable), now: t0 + .milliseconds(20))
        #expect(!machine.breakerClosed)
        _ = machine.add(deletion("new"), handle: RequestHandle(2), now: t0 + .milliseconds(30))
        // Past the first job's backoff and the cooldown: the probe is the new work.
        let probe = started(machine.timerFired(now: t0 + .seconds(2)))
        #expect(probe.map { Array($0.items) } == [["new"]], "the probe carried \(probe.map { Array($0.items) })")
    }
}
