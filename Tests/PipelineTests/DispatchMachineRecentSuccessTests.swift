import InstanceAPI
import Testing

@testable import Pipeline

/// Found by the seeded simulation (seed 766 of 1,000): failures for the whole system right after
/// a success cannot open the breaker (a burst of answers may come in any order), and they used up
/// a job's allowance of uncharged outage failures, so an item read in an outage ended with the
/// outage's answer, dead-lettered, before the breaker could pause anything.
extension DispatchMachineTests {
    /// When the failing job started, against the success just before the outage.
    enum SuccessOrder: CaseIterable {
        /// A moment after it.
        case after
        /// At its instant (the success freed the slot it starts in).
        case atIt
        /// Before it: the success is of a call sent before, answered while the job is in flight.
        case before
    }

    @Test(
        "outage failures right after a success, which cannot open the breaker, do not use up a job's uncharged failures, whenever the job started",
        arguments: SuccessOrder.allCases)
    func failuresAfterASuccessAreNotCharged(order: SuccessOrder) throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.breakerThreshold = 1
                $0.retry.maxAttempts = 1
                $0.concurrency = order == .atIt ? 1 : 2
            }, random: SplitMix64(seed: 15))
        // Before: of another API (an answer of the deletion API while the call is in flight makes
        // its failure its own, `APIAnswers`, charged as designed).
        let first = order == .before ? PipelineRequest(id: "ok", op: .instancesInfo, target: .info(details: false), items: ["tok"]) : deletion("ok")
        let ok = try #require(started(machine.add(first, handle: 0, now: t0)).first)
        let failing: CallJob
        switch order {
        case .after:
            _ = machine.finished(jobID: ok.id, answers([.ok]), now: t0)
            failing = try #require(started(machine.add(deletion("down"), handle: 1, now: t0 + .milliseconds(100))).first)
        case .atIt:
            // Queued behind it (concurrency 1): it starts as the success frees the slot.
            _ = machine.add(deletion("down"), handle: 1, now: t0)
            failing = try #require(started(machine.finished(jobID: ok.id, answers([.ok]), now: t0)).first)
        case .before:
            failing = try #require(started(machine.add(deletion("down"), handle: 1, now: t0)).first)
            _ = machine.finished(jobID: ok.id, answers([.ok]), now: t0 + .milliseconds(150))
        }
        // The outage begins a moment after that success: the breaker cannot open yet.
        var now = t0 + .milliseconds(200)
        var actions = machine.finished(jobID: failing.id, .failed(outage503), now: now)
        var retries = 0
        while machine.breakerClosed, retries < 10 {
            #expect(settled(actions).isEmpty, "failed \(retries + 1) time(s) within a second of a success, settled: \(settled(actions))")
            guard let due = timers(actions).last else { break }
            now = due
            guard let retry = started(machine.timerFired(now: now)).first else { break }
            retries += 1
            actions = machine.finished(jobID: retry.id, .failed(outage503), now: now)
        }
        #expect(!machine.breakerClosed, "the first failure a second after the success opens it")
        #expect(settled(actions).isEmpty, "nothing settled with the outage's answer")
    }
}
