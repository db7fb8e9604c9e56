import InstanceAPI
import Testing

@testable import Pipeline

/// A batch answer whose every item says the backend failed is read as a 500 (`failedEveryItem`),
/// one token's too: an answer of items is the backend answering, and it would close the breaker
/// while the backend fails for everyone (found by the second review). Items that failed item by
/// item beside answered ones and then fail together fail on their own: charged (the first
/// review). A fresh token the backend always fails on is a stuck item like any other: it waits
/// behind the breaker while nothing else of its API is answered (consumption goes on).
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
    @Test("items that failed INTERNAL beside answered ones, then fail together every time, end INTERNAL at max-attempts, idle; the breaker stays closed")
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
            actions = machine.finished(jobID: retry.id, failing(retry), now: now)
            opened = opened || actions.contains { if case .breakerOpened = $0 { true } else { false } }
            done += settled(actions)
        }
        #expect(!opened && machine.breakerClosed, "one pair of tokens the backend fails on is no outage")
        #expect(done.map(\.answer.result.code) == [.ok, .internal, .internal], "\(done.map(\.answer.result.code))")
        #expect(done.last?.attempts == 3, "max-attempts, as before")
    }

    @Test("an answer of items that all say the backend failed (mixed codes come so) does not close an open breaker: it is no sign the backend answers")
    func mixedFailingAnswerIsNoSuccess() throws {
        var opening = machineWithOpenBreaker(seed: 9)
        #expect(!opening.machine.breakerClosed)
        var now = t0
        var probe: CallJob?
        for _ in 0..<10 where probe == nil {
            guard let due = timers(opening.opened).max() ?? Optional(now + .seconds(5)) else { break }
            now = max(now + .milliseconds(100), due)
            opening.opened = opening.machine.timerFired(now: now)
            probe = started(opening.opened).first
        }
        let job = try #require(probe)
        _ = opening.machine.finished(jobID: job.id, answers(job.items.indices.map { $0 % 2 == 0 ? .internal : .unavailable }), now: now)
        #expect(!opening.machine.breakerClosed, "items saying the backend failed closed the breaker")
    }
}
