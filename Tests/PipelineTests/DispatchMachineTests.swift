import InstanceAPI
import Testing
import WireJSON

@testable import Pipeline

/// The dispatch machine alone, driven by events at instants the test chooses.
@Suite("Dispatch machine: retries, breaker, pacing and revokes, with an injected clock")
struct DispatchMachineTests {
    let t0 = ContinuousClock.now

    @Test("a full call starts at once; a partial one after the linger, by the one timer")
    func lingerByTimer() {
        var machine = DispatchMachine(configuration: pipeline(), random: SplitMix64(seed: 1))
        let full = machine.add(subscribe("a", 1_000), handle: 0, now: t0)
        #expect(started(full).map(\.items.count) == [1_000])
        let partial = machine.add(subscribe("b", 10), handle: 1, now: t0)
        #expect(started(partial).isEmpty)
        #expect(timers(partial) == [t0 + .milliseconds(10)])
        #expect(started(machine.timerFired(now: t0 + .milliseconds(10))).map(\.items.count) == [10])
    }

    @Test("past its linger a partial call waits for a free slot, gathering the items that come meanwhile into one call")
    func lingerWaitsForASlot() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.concurrency = 1 }, random: SplitMix64(seed: 4))
        let busy = try #require(started(machine.add(subscribe("a", 1_000), handle: 0, now: t0)).first)
        #expect(started(machine.add(subscribe("b", 300), handle: 1, now: t0)).isEmpty)
        // The linger passes while the only slot is busy: no partial call is formed, no timer spins.
        let due = machine.timerFired(now: t0 + .milliseconds(20))
        #expect(started(due).isEmpty && timers(due).isEmpty)
        #expect(started(machine.add(subscribe("c", 400), handle: 2, now: t0 + .milliseconds(30))).isEmpty)
        // The slot frees: the 700 waiting items go out as one call.
        let freed = machine.finished(jobID: busy.id, answers(Array(repeating: .ok, count: 1_000)), now: t0 + .milliseconds(40))
        #expect(started(freed).map(\.items.count) == [700])
    }

    @Test("past their linger, partial calls are formed only for the free slots, oldest key first; the rest go on gathering")
    func lingerFillsFreeSlotsOnly() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.concurrency = 2 }, random: SplitMix64(seed: 5))
        for (handle, topic) in ["t1", "t2", "t3"].enumerated() {
            _ = machine.add(subscribe("r\(handle)", 100, topic: topic), handle: RequestHandle(handle), now: t0)
        }
        let first = started(machine.timerFired(now: t0 + .milliseconds(10)))
        #expect(first.map(\.target) == [.topic("t1"), .topic("t2")], "two slots: the two oldest keys")
        _ = machine.add(subscribe("r3", 100, topic: "t3"), handle: 3, now: t0 + .milliseconds(11))
        let freed = machine.finished(jobID: first[0].id, answers(Array(repeating: .ok, count: 100)), now: t0 + .milliseconds(12))
        #expect(started(freed).map(\.items.count) == [200], "t3 gathered both its requests while waiting")
    }

    @Test("a call's items that end alike settle as runs: one per request and answer, in item order")
    func settlesInRuns() throws {
        var machine = DispatchMachine(configuration: pipeline(), random: SplitMix64(seed: 3))
        #expect(started(machine.add(subscribe("a", 600), handle: 0, now: t0)).isEmpty, "a partial call waits for the linger")
        let job = try #require(started(machine.add(subscribe("a", 400), handle: 1, now: t0)).first)
        #expect(job.items.count == 1_000)
        var codes = [ResultCode](repeating: .ok, count: 1_000)
        codes[700] = .notFound
        let actions = machine.finished(jobID: job.id, answers(codes), now: t0 + .milliseconds(5))
        let runs = actions.flatMap { action -> [ItemSettlement] in if case .settle(let runs) = action { runs } else { [] } }
        #expect(runs.map(\.origin.request) == [0, 1, 1, 1])
        #expect(runs.map(\.indexes) == [0..<600, 0..<100, 100..<101, 101..<400])
        #expect(runs.map(\.answer.result.code) == [.ok, .ok, .notFound, .ok])
    }

    @Test("randomized answers in runs: exactly the final items settle, in maximal runs, whatever the revocations")
    func randomizedRuns() throws {
        var random = SplitMix64(seed: 11)
        let alphabet: [ResultCode] = [.ok, .notFound, .unavailable, .resourceExhausted, .internal, .ok, .ok]
        for round in 0..<40 {
            var machine = DispatchMachine(configuration: pipeline(), random: SplitMix64(seed: UInt64(round)))
            let lingering = machine.add(subscribe("a", 600), handle: 0, now: t0)
            let job = try #require(started(machine.add(subscribe("a", 400), handle: 1, now: t0)).first)
            var codes: [ResultCode] = []
            while codes.count < 1_000 {
                let code = alphabet[Int(random.next() % UInt64(alphabet.count))]
                codes += Array(repeating: code, count: min(1 + Int(random.next() % 40), 1_000 - codes.count))
            }
            let revoked = round % 2 == 1
            if revoked { _ = machine.drop([1], now: t0) }
            let actions = machine.finished(jobID: job.id, answers(codes), now: t0 + .milliseconds(5))

            // What goes again (paced at once, retried after a backoff; one call of the key at a
            // time) is exactly the retryable items of requests not revoked, each still with its
            // own origin.
            var again: [CallJob] = []
            var pending = actions
            var now = t0 + .milliseconds(5)
            var timer = timers(lingering).last
            while true {
                let starts = started(pending)
                again += starts
                timer = timers(pending).last ?? timer
                if let next = starts.first {
                    pending = machine.finished(jobID: next.id, answers(Array(repeating: .ok, count: next.items.count)), now: now)
                } else if let due = timer {
                    (now, timer) = (due, nil)
                    pending = machine.timerFired(now: due)
                } else {
                    break
                }
            }
            let goingAgain = again.flatMap { job in job.origins.indices.map { "\(job.origins[$0].request)/\(job.origins[$0].index) \(job.items[$0])" } }
            let expectedAgain = codes.indices.filter { codes[$0].isRetryable && !(revoked && job.origins[$0].request == 1) }.map {
                "\(job.origins[$0].request)/\(job.origins[$0].index) \(job.items[$0])"
            }
            #expect(goingAgain.sorted() == expectedAgain.sorted(), "round \(round)")

            // Decided one item at a time: final codes settle; retryable ones go again (retried or
            // paced) or, for the revoked request, are dropped: none of those settles now.
            let expected = codes.indices.filter { !codes[$0].isRetryable }.map { "\(job.origins[$0].request)/\(job.origins[$0].index) \(codes[$0])" }
            let actual = settled(actions).map { "\($0.origin.request)/\($0.origin.index) \($0.answer.result.code)" }
            let firstDifference = zip(actual, expected).first { $0 != $1 }
            #expect(actual.count == expected.count && firstDifference == nil, "round \(round): first difference \(String(describing: firstDifference))")
            let runs = actions.flatMap { action -> [ItemSettlement] in if case .settle(let runs) = action { runs } else { [] } }
            for (run, next) in zip(runs, runs.dropFirst()) {
                let mergeable = run.origin.request == next.origin.request && run.indexes.upperBound == next.origin.index && run.answer == next.answer
                #expect(!mergeable, "round \(round): runs \(run.indexes) and \(next.indexes) should be one")
            }
        }
    }

    @Test("retry split: final items settle now, retryable ones start again after a backoff")
    func retrySplit() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 2))
        let job = try #require(started(machine.add(subscribe("a", 4), handle: 0, now: t0)).first)
        let actions = machine.finished(jobID: job.id, answers([.ok, .unavailable, .notFound, .internal]), now: t0 + .milliseconds(5))
        #expect(settled(actions).map(\.origin.index).sorted() == [0, 2])
        #expect(started(actions).isEmpty, "the retry waits for its backoff")
        let due = try #require(timers(actions).last)
        #expect(due <= t0 + .milliseconds(105))
        let retry = try #require(started(machine.timerFired(now: due)).first)
        #expect(retry.items == ["a-1", "a-3"])
        #expect(retry.attempts == 1)
        let last = machine.finished(jobID: retry.id, answers([.ok, .ok]), now: due + .milliseconds(5))
        #expect(settled(last).map(\.answer.result.code) == [.ok, .ok])
        #expect(settled(last).allSatisfy { $0.attempts == 2 })
    }

    @Test("items the answer has no result for are INTERNAL: retried, and settled INTERNAL when out of attempts")
    func missingAnswers() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 3))
        var job = try #require(started(machine.add(subscribe("a", 4), handle: 0, now: t0)).first)
        var now = t0
        // Two runs for four items: the first two answer OK, the last two have no result.
        var actions = machine.finished(jobID: job.id, .items(RunLengthList(repeating: ItemAnswer(ItemResult(.ok)), count: 2)), now: now)
        #expect(settled(actions).map(\.origin.index) == [0, 1])
        for attempt in 2...3 {
            let due = try #require(timers(actions).last)
            now = due
            job = try #require(started(machine.timerFired(now: now)).first)
            #expect(job.items == ["a-2", "a-3"] && job.attempts == attempt - 1)
            actions = machine.finished(jobID: job.id, .items([]), now: now)
        }
        #expect(settled(actions).map(\.origin.index) == [2, 3])
        #expect(settled(actions).allSatisfy { $0.answer.result.code == .internal && $0.attempts == 3 })
    }

    @Test("systemic failures open the breaker and are not charged to the items")
    func systemicNotCharged() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 3))
        let job = try #require(started(machine.add(subscribe("a", 2), handle: 0, now: t0)).first)
        let refused = machine.finished(jobID: job.id, .failed(.unauthenticated(api: .batchAdd, message: "401")), now: t0)
        #expect(!machine.breakerClosed)
        #expect(pauses(refused).isEmpty, "all that waits is the suspect attempt: consumption goes on, so new work can probe")
        #expect(started(refused).isEmpty && settled(refused).isEmpty)
        #expect(timers(refused) == [t0 + .seconds(1)], "one timer for the cooldown")
        let cooled = machine.timerFired(now: t0 + .seconds(1))
        let probe = try #require(started(cooled).first)
        #expect(probe.attempts == 0, "the refused attempt was not charged")
        #expect(pauses(cooled).isEmpty)
        let closed = machine.finished(jobID: probe.id, answers([.ok, .ok]), now: t0 + .seconds(1))
        #expect(pauses(closed).isEmpty)
        #expect(settled(closed).allSatisfy { $0.attempts == 1 })
    }

    @Test("a request full of ids the client refuses never opens the breaker (issue 17, point 2)")
    func itemFailuresDoNotOpen() {
        var machine = DispatchMachine(configuration: pipeline(), random: SplitMix64(seed: 4))
        var actions: [DispatchAction] = []
        for index in 0..<20 { actions += machine.add(deletion("d\(index)"), handle: RequestHandle(index), now: t0) }
        var running = started(actions)
        var all: [DispatchAction] = actions
        while let job = running.popLast() {
            let next = machine.finished(jobID: job.id, .failed(.invalidArgument(field: "id", value: job.items[0], reason: "has a '/'")), now: t0)
            all += next
            running += started(next)
        }
        #expect(pauses(all).isEmpty, "never paused")
        #expect(machine.breakerClosed)
        #expect(settled(all).count == 20)
        #expect(settled(all).allSatisfy { $0.answer.result.code == .invalidRequest && $0.attempts == 1 })
    }

    @Test("an open breaker whose last probe failed with nothing queued resumes consumption at its cooldown (issue 17, point 2)")
    func breakerWayBack() throws {
        let opening = machineWithOpenBreaker(seed: 5)
        var machine = opening.machine
        let outage = outage503
        #expect(opening.started == 3)
        #expect(!machine.breakerClosed)
        #expect(pauses(opening.opened).isEmpty, "every waiting job is suspect: consumption goes on, so new work can probe")
        // The cooldown passes: the probe goes out and fails; the others are held, not charged.
        let jobs = started(machine.timerFired(now: t0 + .seconds(1)))
        #expect(jobs.count == 1)
        let failedProbe = machine.finished(jobID: jobs[0].id, .failed(outage), now: t0 + .seconds(1))
        #expect(timers(failedProbe) == [t0 + .seconds(3)], "the cooldown doubled")
        // Take the rest of the work away (a revoke), so nothing is queued to probe with.
        _ = machine.drop([0, 1, 2], now: t0 + .seconds(2))
        #expect(!machine.hasWaitingWork)
        let due = machine.timerFired(now: t0 + .seconds(3))
        #expect(pauses(due) == [false], "consumption resumes so that new work can probe")
        let fresh = machine.add(deletion("d9"), handle: 9, now: t0 + .seconds(4))
        let probe = try #require(started(fresh).first, "the next work is the probe")
        let recovered = machine.finished(jobID: probe.id, answers([.ok]), now: t0 + .seconds(4))
        #expect(machine.breakerClosed)
        #expect(settled(recovered).map(\.answer.result.code) == [.ok])
    }

    @Test("time with the breaker open is not charged to max-elapsed (issue 17, point 5)")
    func outageNotCharged() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.retry.maxElapsed = .seconds(10)
                $0.breakerMaxCooldown = .seconds(60)
            },
            random: SplitMix64(seed: 6))
        let outage = InstanceAPIError.transport(api: .batchAdd, message: "connection reset by peer")
        var job = try #require(started(machine.add(subscribe("a", 1), handle: 0, now: t0)).first)
        var now = t0
        // Three failures open the breaker; then probes fail for a minute, far beyond max-elapsed.
        for _ in 0..<3 {
            let actions = machine.finished(jobID: job.id, .failed(outage), now: now)
            #expect(settled(actions).isEmpty)
            if let next = started(actions).first {
                job = next
                continue
            }
            now = try #require(timers(actions).last)
            job = try #require(started(machine.timerFired(now: now)).first)
        }
        while now < t0 + .seconds(60) {
            let actions = machine.finished(jobID: job.id, .failed(outage), now: now)
            #expect(settled(actions).isEmpty, "nothing is given up while the breaker is open")
            now = try #require(timers(actions).last)
            job = try #require(started(machine.timerFired(now: now)).first)
        }
        // The probe succeeds, then the next attempt meets one transient error: it is retried.
        let recovered = machine.finished(jobID: job.id, .failed(.serverError(api: .batchAdd, status: 500, message: "oops", retryAfter: nil)), now: now)
        #expect(settled(recovered).isEmpty, "a transient error after a long outage is retried, not dead-lettered")
    }

    @Test("a revoke drops waiting work at once; running items of revoked requests are never retried (issue 17, point 4)")
    func dropOnRevoke() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 1
            }, random: SplitMix64(seed: 7))
        let first = try #require(started(machine.add(subscribe("a", 2), handle: 0, now: t0)).first)
        #expect(started(machine.add(subscribe("b", 2, topic: "other"), handle: 1, now: t0)).isEmpty, "concurrency 1: b waits")
        let afterDrop = machine.drop([0, 1], now: t0)
        #expect(started(afterDrop).isEmpty)
        let answered = machine.finished(jobID: first.id, answers([.ok, .unavailable]), now: t0 + .milliseconds(1))
        #expect(settled(answered).map(\.origin.index) == [0], "the final item settles; the retryable one is dropped")
        #expect(started(answered).isEmpty, "b never starts")
        #expect(timers(answered).isEmpty, "no retry is scheduled")
        #expect(!machine.hasWaitingWork)
        #expect(machine.runningCalls == 0)
    }

    @Test("Retry-After paces the whole API, not only the call that got it")
    func retryAfterPacesTheAPI() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 1
                $0.retry.maxBackoff = .seconds(5)
            }, random: SplitMix64(seed: 8))
        let first = try #require(started(machine.add(subscribe("a", 1), handle: 0, now: t0)).first)
        _ = machine.add(subscribe("b", 1, topic: "other"), handle: 1, now: t0)
        let throttled = machine.finished(jobID: first.id, .failed(.throttled(api: .batchAdd, retryAfter: .seconds(2))), now: t0)
        #expect(started(throttled).isEmpty, "b, on the same API, waits for the Retry-After")
        #expect(started(machine.timerFired(now: t0 + .seconds(1))).isEmpty)
        #expect(!started(machine.timerFired(now: t0 + .seconds(2))).isEmpty)
    }

    @Test("a Retry-After of a day, or of Int.max seconds, holds the API no longer than the longest backoff")
    func retryAfterIsCapped() throws {
        for retryAfter in [Duration.seconds(86_400), .seconds(Int64.max)] {
            var machine = DispatchMachine(
                configuration: pipeline {
                    $0.linger = .zero
                    $0.concurrency = 1
                }, random: SplitMix64(seed: 8))
            let first = try #require(started(machine.add(subscribe("a", 1), handle: 0, now: t0)).first)
            _ = machine.add(subscribe("b", 1, topic: "other"), handle: 1, now: t0)
            let throttled = machine.finished(jobID: first.id, .failed(.throttled(api: .batchAdd, retryAfter: retryAfter)), now: t0)
            #expect(timers(throttled).allSatisfy { $0 <= t0 + .seconds(1) }, "max-backoff is 1 s")
            #expect(!started(machine.timerFired(now: t0 + .seconds(1))).isEmpty, "b starts once max-backoff has passed")
        }
    }

    @Test("an answer from a call started before the breaker opened does not close it")
    func lateSuccessDoesNotClose() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.breakerThreshold = 1
            }, random: SplitMix64(seed: 9))
        let a = try #require(started(machine.add(deletion("a"), handle: 0, now: t0)).first)
        let b = try #require(started(machine.add(deletion("b"), handle: 1, now: t0)).first)
        _ = machine.finished(jobID: a.id, .failed(.transport(api: .deleteInstance, message: "reset")), now: t0)
        #expect(!machine.breakerClosed)
        _ = machine.finished(jobID: b.id, answers([.ok]), now: t0 + .milliseconds(10))
        #expect(!machine.breakerClosed, "b's answer was sent before the opening and proves nothing")
    }

    @Test("throttled items are paced, not charged: they outlast max-attempts and end OK (issue 12)")
    func throttlingIsPacing() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.retry.maxAttempts = 2
                $0.retry.maxElapsed = .seconds(600)
                $0.callsPerSecond = 1_000
            }, random: SplitMix64(seed: 10))
        var job = try #require(started(machine.add(subscribe("a", 3), handle: 0, now: t0)).first)
        var now = t0
        // Ten throttled answers in a row: far more than max-attempts, and nothing is settled.
        for _ in 0..<10 {
            now += .milliseconds(50)
            let actions = machine.finished(jobID: job.id, answers([.resourceExhausted, .resourceExhausted, .resourceExhausted]), now: now)
            #expect(settled(actions).isEmpty, "throttling never ends an item within max-elapsed")
            if let next = started(actions).first {
                job = next
            } else {
                now = try #require(timers(actions).last)
                job = try #require(started(machine.timerFired(now: now)).first)
            }
            #expect(job.attempts == 0, "not charged")
        }
        let done = machine.finished(jobID: job.id, answers([.ok, .ok, .ok]), now: now + .milliseconds(50))
        #expect(settled(done).map(\.answer.result.code) == [.ok, .ok, .ok])
        #expect(settled(done).allSatisfy { $0.attempts == 11 }, "the outcome still records every attempt")
        let rate = try #require(machine.rates[.batchAdd])
        #expect(rate.throttles == 10 && rate.rate < 1_000, "the rate was cut")
    }

    @Test("a 429 is pacing too, and a mixed answer splits: throttled items paced, failed ones backed off and charged")
    func mixedAnswerSplits() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 11))
        let job = try #require(started(machine.add(subscribe("a", 3), handle: 0, now: t0)).first)
        let actions = machine.finished(jobID: job.id, answers([.ok, .resourceExhausted, .internal]), now: t0 + .milliseconds(5))
        #expect(settled(actions).map(\.origin.index) == [0])
        let paced = try #require(started(actions).first, "the throttled item goes again at once, paced by the rate")
        #expect(paced.items == ["a-1"] && paced.attempts == 0)
        let refused = machine.finished(jobID: paced.id, .failed(.throttled(api: .batchAdd, retryAfter: nil)), now: t0 + .milliseconds(10))
        #expect(settled(refused).isEmpty, "a 429 is not charged")
        #expect(started(refused).isEmpty || started(refused).first?.items == ["a-1"])
        let both = started(refused) + started(machine.timerFired(now: t0 + .seconds(5)))
        #expect(Set(both.map(\.items)) == [["a-1"], ["a-2"]])
        #expect(both.first { $0.items == ["a-2"] }?.attempts == 1, "the INTERNAL item was charged")
    }

    @Test("the two halves of a mixed answer run at once under ids of their own, and each answer settles only its own items")
    func splitHalvesHaveTheirOwnIDs() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 12))
        let job = try #require(started(machine.add(subscribe("a", 2), handle: 0, now: t0)).first)
        let split = machine.finished(jobID: job.id, answers([.resourceExhausted, .internal]), now: t0 + .milliseconds(5))
        let paced = try #require(started(split).first)
        let retried = try #require(started(machine.timerFired(now: t0 + .seconds(1))).first)
        #expect(paced.items == ["a-0"] && retried.items == ["a-1"])
        #expect(paced.id != retried.id, "both run at once")
        #expect(!paced.mayHaveTakenEffect, "a throttled item was not carried out")
        #expect(retried.mayHaveTakenEffect, "an item answered INTERNAL may have been")
        let second = machine.finished(jobID: retried.id, answers([.ok]), now: t0 + .seconds(2))
        #expect(settled(second).map(\.origin.index) == [1])
        let first = machine.finished(jobID: paced.id, answers([.notFound]), now: t0 + .seconds(2))
        #expect(settled(first).map(\.origin.index) == [0])
        #expect(settled(first).map(\.answer.result.code) == [.notFound], "the paced call's own answer")
        #expect(machine.runningCalls == 0 && !machine.hasWaitingWork)
    }

    @Test("one item that every call refuses for the whole system (an IAM-style 403) is not every probe: the work behind it runs, and it is settled")
    func systemFailureOfOneItemDoesNotStall() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.breakerThreshold = 1
            }, random: SplitMix64(seed: 14))
        var now = t0
        var running: [CallJob] = started(machine.add(deletion("fid-of-another-project"), handle: 0, now: now))
        for handle in 1...5 { running += started(machine.add(deletion("fid-own-\(handle)"), handle: RequestHandle(handle), now: now)) }
        var settledItems: [RequestHandle: ResultCode] = [:]
        var arrivals = 5
        // Ten simulated minutes: each running call is answered (the foreign id always with a 403
        // that names nobody), then the timer fires; a new deletion arrives every second, as a
        // trickle of erasure requests does.
        while now < t0 + .seconds(600), settledItems[0] == nil || settledItems.count < arrivals + 1 {
            if now >= t0 + .seconds(Double(arrivals - 4)) {
                arrivals += 1
                running += started(machine.add(deletion("fid-own-\(arrivals)"), handle: RequestHandle(arrivals), now: now))
            }
            let answering = running
            running = []
            for job in answering {
                let foreign = job.items[0] == "fid-of-another-project"
                let answer: CallAnswer =
                    foreign ? .failed(.permissionDenied(api: .deleteInstance, message: "The caller does not have permission")) : answers([.ok])
                let actions = machine.finished(jobID: job.id, answer, now: now)
                for item in settled(actions) { settledItems[item.origin.request] = item.answer.result.code }
                running += started(actions)
            }
            now += .milliseconds(100)
            let fired = machine.timerFired(now: now)
            for item in settled(fired) { settledItems[item.origin.request] = item.answer.result.code }
            running += started(fired)
        }
        #expect((1...arrivals).allSatisfy { settledItems[RequestHandle($0)] == .ok }, "the own installations are deleted: \(settledItems)")
        #expect(settledItems[0] == .permissionDenied, "the foreign one ends, charged once the others showed the system works")
        #expect(now < t0 + .seconds(60))
    }

    @Test("a throttled item past max-elapsed settles RESOURCE_EXHAUSTED from its call's items, beside a retried one")
    func throttledPastMaxElapsedSettles() throws {
        var machine = DispatchMachine(configuration: pipeline { $0.linger = .zero }, random: SplitMix64(seed: 13))
        let job = try #require(started(machine.add(subscribe("a", 2), handle: 0, now: t0)).first)
        let late = t0 + .seconds(11)  // max-elapsed is 10 s
        let answered = machine.finished(jobID: job.id, answers([.resourceExhausted, .internal]), now: late)
        #expect(settled(answered).map(\.origin.index) == [0, 1])
        #expect(settled(answered).map(\.answer.result.code) == [.resourceExhausted, .internal])
        #expect(settled(answered).map(\.attempts) == [1, 1])
    }

    @Test("paused: nothing starts, running calls settle, the pause costs no item its max-elapsed; resumed: the waiting work starts at once")
    func pauseAndResume() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 1
            }, random: SplitMix64(seed: 11))
        let running = try #require(started(machine.add(subscribe("a", 2, topic: "x"), handle: 0, now: t0)).first)
        _ = machine.add(subscribe("b", 2, topic: "y"), handle: 1, now: t0)
        let configuration = pipeline {
            $0.linger = .zero
            $0.concurrency = 1
        }
        #expect(started(machine.reconfigure(configuration, paused: true, now: t0 + .milliseconds(1))).isEmpty)
        // The running call's answer settles; its retryable item waits, and so does b.
        let answer = machine.finished(jobID: running.id, answers([.ok, .unavailable]), now: t0 + .milliseconds(2))
        #expect(settled(answer).map(\.answer.result.code) == [.ok])
        #expect(started(answer).isEmpty)
        let late = t0 + .seconds(60)  // far past max-elapsed (10 s), all of it paused
        #expect(started(machine.timerFired(now: late)).isEmpty, "nothing starts while paused")
        let resumed = machine.reconfigure(configuration, paused: false, now: late)
        let next = try #require(started(resumed).first)
        #expect(started(resumed).count == 1, "concurrency 1")
        let more = machine.finished(jobID: next.id, answers(next.items.map { _ in .ok }), now: late + .milliseconds(1))
        let rest = started(more) + started(machine.timerFired(now: late + .seconds(1)))
        #expect(Set((started(resumed) + rest).flatMap(\.items)) == ["a-1", "b-0", "b-1"], "the retry was not dead-lettered for the paused time")
    }

    @Test("new settings govern the next start: concurrency grows at once, the rate ceiling cuts the bucket")
    func reconfigure() {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.concurrency = 1
            }, random: SplitMix64(seed: 12))
        var first: [CallJob] = []
        for n in 0..<4 { first += started(machine.add(deletion("d\(n)"), handle: RequestHandle(n), now: t0)) }
        #expect(first.count == 1)
        let wider = machine.reconfigure(
            pipeline {
                $0.linger = .zero
                $0.concurrency = 3
            }, paused: false, now: t0)
        #expect(started(wider).count == 2, "two more may run at once")
        var slow = pipeline {
            $0.linger = .zero
            $0.concurrency = 8
            $0.callsPerSecond = 2
        }
        slow.adaptiveRate.start = 1_000
        _ = machine.reconfigure(slow, paused: false, now: t0)
        #expect(!machine.rates.isEmpty && machine.rates.values.allSatisfy { $0.rate == 2 }, "the ceiling cuts the rate of every API called")
        var starts = started(machine.add(deletion("d4"), handle: 4, now: t0 + .milliseconds(1)))
        starts += started(machine.add(deletion("d5"), handle: 5, now: t0 + .milliseconds(2)))
        #expect(starts.count <= 1, "at 2 calls/s, with a bucket of one, at most one call starts at once")
    }
}
