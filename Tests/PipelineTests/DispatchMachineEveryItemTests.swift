import InstanceAPI
import Testing

@testable import Pipeline

/// A batch answer whose every item is INTERNAL is the backend failing (`failedEveryItem`), an
/// outage; but items that already failed on their own, while the backend answered the others of
/// their call, and then fail together are failing on their own: charged, ending at max-attempts,
/// never behind an open breaker waiting for other work (found by the review of that change).
extension DispatchMachineTests {
    @Test("items that failed INTERNAL beside answered ones, then fail together every time, end INTERNAL at max-attempts; the breaker stays closed")
    func itemsFailingTogetherAfterFailingAlone() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.breakerThreshold = 1
            }, random: SplitMix64(seed: 4))
        let tokens = (0..<3).map { String(repeating: "\($0)", count: 64) }
        let request = PipelineRequest(id: "imp", op: .apnsImport, target: .apns(application: "com.example", sandbox: false), items: tokens)
        let first = try #require(started(machine.add(request, handle: 0, now: t0)).first)
        var actions = machine.finished(jobID: first.id, answers([.ok, .internal, .internal]), now: t0)
        var done = settled(actions)
        var now = t0
        var opened = false
        for _ in 0..<10 where done.count < 3 {
            guard let due = timers(actions).max() else { break }
            // Idle between attempts, over a second: the breaker could open on an outage's failure.
            now = max(now + .milliseconds(1_500), due)
            actions = machine.timerFired(now: now)
            guard let retry = started(actions).first else { continue }
            actions = machine.finished(jobID: retry.id, .failed(.failedEveryItem(api: .batchImport, code: .internal, message: "INTERNAL")), now: now)
            opened = opened || actions.contains { if case .breakerOpened = $0 { true } else { false } }
            done += settled(actions)
        }
        #expect(!opened && machine.breakerClosed, "one pair of tokens the backend fails on is no outage")
        #expect(done.map(\.answer.result.code) == [.ok, .internal, .internal], "\(done.map(\.answer.result.code))")
        #expect(done.last?.attempts == 3, "max-attempts, as before the change")
    }
}
