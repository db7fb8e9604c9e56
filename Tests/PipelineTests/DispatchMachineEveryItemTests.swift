import InstanceAPI
import Testing

@testable import Pipeline

/// A batch answer whose every item says the backend failed is read as a 500 (`failedEveryItem`),
/// one token's too: an answer of items is the backend answering, and it would close the breaker
/// while the backend fails for everyone (found by the second review). So a token the backend
/// always fails on is a stuck item like any other: it waits behind the breaker while nothing else
/// is answered, and ends at max-attempts once other work of its API is.
extension DispatchMachineTests {
    private func failing(_ job: CallJob) -> CallAnswer {
        .failed(.failedEveryItem(api: .batchImport, code: .internal, message: "INTERNAL"))
    }

    @Test("a token the backend always fails opens the breaker and settles nothing alone; once other imports are answered it ends INTERNAL at max-attempts")
    func tokenTheBackendAlwaysFails() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.breakerThreshold = 1
            }, random: SplitMix64(seed: 4))
        let stuck = PipelineRequest(
            id: "stuck", op: .apnsImport, target: .apns(application: "com.example", sandbox: false), items: [String(repeating: "a", count: 64)])
        var now = t0
        var timer: ContinuousClock.Instant?
        var done: [ItemSettlement] = []
        // Answers every call the actions start, at once (the stuck token failing, others OK), and
        // what those answers start; keeps the latest timer asked for.
        func drive(_ first: [DispatchAction]) {
            var actions = first
            while !actions.isEmpty {
                if let due = timers(actions).last { timer = due }
                done += settled(actions).filter { $0.answer.result.code != .ok }
                var next: [DispatchAction] = []
                for job in started(actions) {
                    next += machine.finished(jobID: job.id, job.target == stuck.target ? failing(job) : answers([.ok]), now: now)
                }
                actions = next
            }
        }
        func tick() {
            guard let due = timer else { return }
            timer = nil
            now = max(now + .milliseconds(100), due)
            drive(machine.timerFired(now: now))
        }
        drive(machine.add(stuck, handle: 0, now: t0))
        // Alone, over a minute: the breaker opens on it, and it is never settled.
        while now < t0 + .seconds(60), timer != nil { tick() }
        #expect(!machine.breakerClosed && done.isEmpty, "nothing else answered: it may be the backend failing for everyone")
        // Other imports (another app: calls of their own) come, one a round, and are answered:
        // the stuck token's failures are its own from then on, charged.
        for round in 1...60 where done.isEmpty {
            let other = PipelineRequest(
                id: "ok-\(round)", op: .apnsImport, target: .apns(application: "com.example.other", sandbox: false),
                items: [String(repeating: "b", count: 64)])
            drive(machine.add(other, handle: RequestHandle(round), now: now))
            tick()
        }
        #expect(done.map(\.answer.result.code) == [.internal], "\(done)")
    }
}
