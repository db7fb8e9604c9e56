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
    let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: nil)

    /// A machine for deletions with `retry`, the breaker's `threshold` and `cooldown`, unpaced.
    private func machine(_ retry: RetryPolicy, threshold: Int, cooldown: Duration, seed: UInt64) -> DispatchMachine {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .zero, concurrency: 4, retry: retry, breakerThreshold: threshold,
            breakerCooldown: cooldown, breakerMaxCooldown: .seconds(8))
        configuration.adaptiveRate.start = 1_000
        return DispatchMachine(configuration: configuration, random: SplitMix64(seed: seed))
    }

    private func deletion(_ id: String) -> PipelineRequest { PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: [id]) }

    private func started(_ actions: [DispatchAction]) -> [CallJob] { actions.compactMap { if case .start(let job) = $0 { job } else { nil } } }

    private func settled(_ actions: [DispatchAction]) -> [ItemSettlement] {
        actions.flatMap { action -> [ItemSettlement] in if case .settle(let items) = action { items } else { [] } }
    }

    @Test("uncharged retries before the breaker opens back off more each time and end at max-elapsed, reporting every attempt")
    func unchargedRetriesEnd() throws {
        var machine = machine(
            RetryPolicy(maxAttempts: 1, initialBackoff: .seconds(1), maxBackoff: .seconds(30), maxElapsed: .seconds(120)), threshold: 1_000,
            cooldown: .seconds(1), seed: 3)
        var actions = machine.add(deletion("fid"), handle: RequestHandle(0), now: t0)
        var now = t0
        var waits: [Duration] = []
        var attempts = 0
        var settled: [ItemSettlement] = []
        while settled.isEmpty, attempts < 100 {
            if let job = started(actions).first {
                attempts += 1
                now += .milliseconds(50)
                actions = machine.finished(jobID: job.id, .failed(unavailable), now: now)
            } else {
                let timer = try #require(actions.lazy.compactMap { if case .setTimer(let at) = $0 { at } else { nil } }.last, "nothing asked for")
                waits.append(timer - now)
                now = max(now, timer)
                actions = machine.timerFired(now: now)
            }
            settled = self.settled(actions)
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
    /// API's job goes uncharged for fewer counted failures than the threshold, then is charged and
    /// ends.
    @Test("one API down while another answers: uncharged for threshold failures, then charged, so its job ends")
    func chargedPastTheThreshold() throws {
        var machine = machine(
            RetryPolicy(maxAttempts: 1, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(600)), threshold: 3,
            cooldown: .milliseconds(10), seed: 11)
        var actions = machine.add(deletion("fid"), handle: RequestHandle(0), now: t0)
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
                settled = self.settled(actions)
            } else {
                now += .seconds(1)
                actions = machine.timerFired(now: now)
            }
            #expect(machine.breakerClosed, "round \(round)")
        }
        // The first failure, 5 ms after the other API's answer, is uncounted (it could be an
        // outage's onset); each later one follows another answer, and counts.
        #expect(failures == 5, "uncharged 1 + 3 times (the threshold), then charged: max-attempts 1 ends it; \(failures) failures")
        #expect(settled.first?.answer.result.code == .unavailable && settled.first?.attempts == 5)
    }

    /// The second review: jobs backing off came back as ordinary retries, so with the breaker
    /// open each was the probe in turn ahead of new work, doubling the cooldown, reading paused.
    @Test("a job backing off from a failure of the whole system comes back a suspect once the breaker is open: new work is the probe")
    func backoffComesBackSuspect() throws {
        var machine = machine(
            RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100), maxBackoff: .seconds(30), maxElapsed: .seconds(600)), threshold: 2,
            cooldown: .seconds(1), seed: 9)
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
