import InstanceAPI
import Testing

@testable import Pipeline

/// One item the backend throttles at every attempt (a token it limits on its own, an adversary's
/// answer) among calls its API accepts: each of its throttles, one a round trip for up to
/// max-elapsed, cut the API's rate, and the whole API fell to its floor for that one item (the
/// answers audit, F1). Past its first two throttles, such an item's throttles say nothing of the
/// quota, unless its API throttled a fresher job since (a quota throttles fresh calls too: the
/// reviews); the item waits alone, backing off.
extension DispatchMachineTests {
    /// 100 deletions a second for 20 s, each answered in 50 ms, all accepted but those in
    /// `poisoned`, added 10 ms apart after 5 s and throttled at every attempt. The API's rate at the end,
    /// the throttles it counted, the poisoned attempts and the deletions that succeeded.
    private func driveWithPoison(_ poisoned: Set<String>, seed: UInt64) throws -> (rate: Double, counted: Int, poisonAttempts: Int, succeeded: Int) {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 100
                $0.adaptiveRate.start = nil
                $0.retry.maxElapsed = .seconds(120)
            }, random: SplitMix64(seed: seed))
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
        for next in 1...2_000 {
            now += .milliseconds(10)
            take(machine.add(deletion("d\(next)"), handle: RequestHandle(next), now: now))
            // The poisoned deletions come 10 ms apart, from 5 s on.
            for (index, id) in poisoned.sorted().enumerated() where next == 500 + index {
                take(machine.add(deletion(id), handle: RequestHandle(-1 - index), now: now))
            }
            let due = inFlight.filter { $0.due <= now }
            inFlight.removeAll { $0.due <= now }
            for call in due {
                let isPoisoned = Array(call.job.items).contains(where: poisoned.contains)
                if isPoisoned { poisonAttempts += 1 }
                take(machine.finished(jobID: call.job.id, isPoisoned ? .failed(.throttled(api: .deleteInstance, retryAfter: nil)) : answers([.ok]), now: now))
            }
            if let due = timer, due <= now {
                timer = nil
                take(machine.timerFired(now: now))
            }
        }
        let rate = try #require(machine.rates[.deleteInstance])
        return (rate.rate, rate.throttles, poisonAttempts, succeeded)
    }

    @Test("one deletion throttled at every attempt, among deletions its API accepts, counts twice: the API keeps its pace")
    func oneItemThrottledAlways() throws {
        let run = try driveWithPoison(["poison"], seed: 31)
        #expect(run.poisonAttempts > 100, "the poisoned deletion went on being paced: \(run.poisonAttempts)")
        #expect(run.counted == 2, "only its first two throttles count: \(run.counted)")
        #expect(run.rate > 50, "100 deletions a second are offered and accepted; the rate fell to \(run.rate)")
        #expect(run.succeeded > 1_900, "\(run.succeeded) of 2,000 answered")
    }

    @Test("several deletions throttled at every attempt count twice each: they do not take the API to its floor together")
    func severalItemsThrottledAlways() throws {
        let run = try driveWithPoison(["poison-a", "poison-b", "poison-c"], seed: 33)
        #expect(run.poisonAttempts > 15, "\(run.poisonAttempts)")
        #expect(run.counted <= 9, "a few each, while the others are fresh: \(run.counted) counted")
        #expect(run.rate > 50, "the rate fell to \(run.rate)")
        #expect(run.succeeded > 1_900, "\(run.succeeded) of 2,000 answered")
    }
}
