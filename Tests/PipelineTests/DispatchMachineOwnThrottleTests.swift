import InstanceAPI
import Testing

@testable import Pipeline

/// One item the backend throttles at every attempt (a token it limits on its own, an adversary's
/// answer) among calls its API accepts: each of its throttles, one a round trip for up to
/// max-elapsed, cut the API's rate, and the whole API fell to its floor for that one item (the
/// answers audit, F1). Past its first two throttles, such an item's throttles say nothing of the
/// quota.
extension DispatchMachineTests {
    @Test("one deletion throttled at every attempt, among deletions its API accepts, cuts the rate at most twice: the API keeps its pace")
    func oneItemThrottledAlways() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 100
                $0.adaptiveRate.start = nil
                $0.retry.maxElapsed = .seconds(120)
            }, random: SplitMix64(seed: 31))
        var now = t0
        var inFlight: [(job: CallJob, due: ContinuousClock.Instant)] = []
        var timer: ContinuousClock.Instant?
        var succeeded = 0
        var poisonAttempts = 0
        func take(_ actions: [DispatchAction]) {
            for job in started(actions) { inFlight.append((job, now + .milliseconds(50))) }
            if let due = timers(actions).last { timer = due }
            succeeded += settled(actions).count { $0.answer.result.code == .ok }
        }
        // 100 deletions a second for 20 s, each answered in 50 ms; after 5 s, one that is
        // throttled always.
        for next in 1...2_000 {
            now += .milliseconds(10)
            take(machine.add(deletion("d\(next)"), handle: RequestHandle(next), now: now))
            if next == 500 { take(machine.add(deletion("poison"), handle: 0, now: now)) }
            let due = inFlight.filter { $0.due <= now }
            inFlight.removeAll { $0.due <= now }
            for call in due {
                let poisoned = Array(call.job.items) == ["poison"]
                if poisoned { poisonAttempts += 1 }
                take(machine.finished(jobID: call.job.id, poisoned ? .failed(.throttled(api: .deleteInstance, retryAfter: nil)) : answers([.ok]), now: now))
            }
            if let due = timer, due <= now {
                timer = nil
                take(machine.timerFired(now: now))
            }
        }
        let rate = try #require(machine.rates[.deleteInstance]).rate
        #expect(poisonAttempts > 100, "the poisoned deletion went on being paced: \(poisonAttempts)")
        #expect(rate > 50, "100 deletions a second are offered and accepted; the rate fell to \(rate)")
        #expect(succeeded > 1_900, "\(succeeded) of 2,000 answered")
    }
}
