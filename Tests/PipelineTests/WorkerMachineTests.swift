import Foundation
import InstanceAPI
import Kafka
import Testing
import WireJSON

@testable import Pipeline

/// `WorkerMachine` alone, with an injected clock: the composition of the request book, the
/// dispatcher and the read gate, event by event, as `PipelineWorker` performs it.
@Suite("WorkerMachine: one machine for the worker's decisions, with an injected clock")
struct WorkerMachineTests {
    private let partition = KafkaTopicPartition(topic: "requests", partition: 0)
    private let start = ContinuousClock.now
    private let date = Date(timeIntervalSince1970: 1_800_000_000)

    private func machine(_ adjust: (inout PipelineConfiguration) -> Void = { _ in }, control: ControlDocument? = nil) -> WorkerMachine {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .zero, concurrency: 4,
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(10)),
            breakerThreshold: 1, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.adaptiveRate.start = 1_000
        adjust(&configuration)
        return WorkerMachine(configuration: configuration, controlled: ControlledSettings(file: configuration, all: nil, own: control), now: start)
    }

    private func record(_ request: PipelineRequest, offset: Int64) -> KafkaRecord {
        KafkaRecord(topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: Array(request.jsonBody()))
    }

    private func deletion(_ id: String, items: Int = 1) -> PipelineRequest {
        PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: (0..<items).map { "fid-\(id)-\($0)" })
    }

    private func received(_ machine: inout WorkerMachine, _ request: PipelineRequest, offset: Int64, at now: ContinuousClock.Instant) -> [WorkerAction] {
        machine.received(record(request, offset: offset), .success(request), now: now, date: date)
    }

    private func calls(_ actions: [WorkerAction]) -> [CallJob] {
        actions.compactMap { if case .startCall(let job) = $0 { job } else { nil } }
    }

    private func publications(_ actions: [WorkerAction]) -> [Publication] {
        actions.compactMap { if case .publish(let publication) = $0 { publication } else { nil } }
    }

    private func stored(_ actions: [WorkerAction]) -> [KafkaTopicPartition: Int64] {
        actions.reduce(into: [:]) { stored, action in if case .storeOffsets(let offsets) = action { stored.merge(offsets) { $1 } } }
    }

    private func paused(_ actions: [WorkerAction]) -> [Bool] {
        actions.compactMap { action in
            switch action {
            case .pausePartitions: true
            case .resumePartitions: false
            default: nil
            }
        }
    }

    private func ok(_ count: Int) -> CallAnswer {
        .items(RunLengthList(Array(repeating: ItemAnswer(ItemResult(.ok)), count: count)))
    }

    @Test("a record's calls answered publish its outcome once; its acknowledgement stores the offset past it, not before")
    func settlePublishStore() {
        var machine = machine()
        #expect(paused(machine.assigned([partition])) == [false], "a new partition is resumed to match the others")
        let actions = received(&machine, deletion("a", items: 2), offset: 0, at: start)
        let started = calls(actions)
        #expect(started.count == 2, "one call per installation id")
        #expect(machine.statistics.records == 1 && machine.statistics.calls == 2)

        let first = machine.callFinished(started[0].id, of: .deleteInstance, ok(1), now: start + .milliseconds(5), date: date)
        #expect(publications(first).isEmpty, "one of two items settled: no outcome yet")
        let second = machine.callFinished(started[1].id, of: .deleteInstance, ok(1), now: start + .milliseconds(6), date: date)
        let published = publications(second)
        #expect(published.count == 1 && published.first?.outcome.counts == ["OK": 2])
        #expect(stored(second).isEmpty, "nothing is stored before the broker acknowledges the outcome")

        let acknowledged = machine.published(published[0], .delivered, now: start + .milliseconds(7), date: date.addingTimeInterval(0.25))
        #expect(stored(acknowledged) == [partition: 1])
        #expect(machine.statistics.outcomeCount == 1)
        let latencies = acknowledged.compactMap { if case .requestLatency(let latency) = $0 { latency } else { nil } }
        #expect(latencies == [.milliseconds(250)], "the latency is decided once, receipt to acknowledgement, and handed to the metrics")
        #expect(machine.isDrained(.all))
    }

    @Test("at the in-flight bound reads are held; after the hold limit the partitions pause; work done to half resumes them")
    func backpressure() {
        var machine = machine { $0.maxInFlightItems = 2 }
        _ = machine.assigned([partition])
        let actions = received(&machine, deletion("a", items: 2), offset: 0, at: start)
        #expect(actions.contains { if case .holdReads(let until) = $0 { until == start + ReadGate.holdLimit } else { false } })
        #expect(machine.readsHeld)

        let expired = machine.holdExpired(now: start + ReadGate.holdLimit)
        #expect(paused(expired) == [true], "held for the limit: the partitions pause")
        #expect(expired.contains { if case .releaseReads = $0 { true } else { false } }, "the reader goes on to serve rebalances")
        #expect(!machine.readsHeld && machine.consumerPaused)

        let jobs = calls(actions)
        var last: [WorkerAction] = []
        for job in jobs { last = machine.callFinished(job.id, of: .deleteInstance, ok(1), now: start + .seconds(6), date: date) }
        let resumed = machine.published(publications(last)[0], .delivered, now: start + .seconds(7), date: date)
        #expect(paused(resumed) == [false], "nothing held: the partitions resume")
        #expect(!machine.consumerPaused)
    }

    @Test("an operator's pause starts no call and pauses the partitions; resume starts what waited, once")
    func operatorPause() {
        let pause = ControlDocument(version: 1, updatedAt: date, updatedBy: "tester", reason: "drill", overrides: [.paused: .flag(true)])
        var machine = machine(control: pause)
        #expect(paused(machine.assigned([partition])) == [true], "paused from the start, before the first record")
        let actions = received(&machine, deletion("a"), offset: 0, at: start)
        #expect(calls(actions).isEmpty)

        let resume = ControlDocument(version: 2, updatedAt: date, updatedBy: "tester", reason: "over", overrides: [:])
        let resumed = machine.apply(ControlledSettings(file: machine.configuration, all: nil, own: resume), now: start + .seconds(1), date: date)
        #expect(paused(resumed) == [false])
        #expect(calls(resumed).count == 1)
        #expect(resumed.contains { if case .log(.notice, let line) = $0 { line.contains("paused: true → false") } else { false } })
        #expect(machine.apply(machine.controlled, now: start + .seconds(2), date: date).isEmpty, "the same settings change nothing")
    }

    @Test("a drain ends with the event that makes it hold; the stop ends the others undrained; events after the stop change nothing")
    func drainsAndStop() {
        var machine = machine()
        _ = machine.assigned([partition])
        let job = calls(received(&machine, deletion("a"), offset: 0, at: start))[0]
        let drain = machine.beginDrain(.all)
        #expect(drain != nil, "a call is running")
        let answered = machine.callFinished(job.id, of: .deleteInstance, ok(1), now: start + .milliseconds(1), date: date)
        #expect(!answered.contains { if case .drainEnded = $0 { true } else { false } }, "its outcome is still publishing")
        let other = machine.beginDrain(.partitions([partition], []))
        let acknowledged = machine.published(publications(answered)[0], .delivered, now: start + .milliseconds(2), date: date)
        #expect(acknowledged.contains { if case .drainEnded(let id, true) = $0 { id == drain } else { false } })
        #expect(other == nil || acknowledged.contains { if case .drainEnded(let id, true) = $0 { id == other } else { false } })

        let stuck = calls(received(&machine, deletion("b"), offset: 1, at: start + .milliseconds(3)))[0]
        let waiting = machine.beginDrain(.all)
        #expect(waiting != nil)
        #expect(machine.beginStop(now: start + .seconds(1)).map(paused) == [true])
        #expect(machine.beginStop(now: start + .seconds(1)) == nil, "a stop begins once")
        let finished = machine.finishStop()
        #expect(finished.contains { if case .drainEnded(let id, false) = $0 { id == waiting } else { false } })
        #expect((stored(finished)[partition] ?? 1) == 1, "the store point stops before the unfinished record")
        #expect(
            finished.contains { if case .withdrawCalls(let ids) = $0 { ids == [stuck.id] } else { false } },
            "the call still running sends nothing more: its record goes to another worker")
        #expect(received(&machine, deletion("c"), offset: 2, at: start + .seconds(2)).isEmpty)
        #expect(machine.timerFired(now: start + .seconds(3), date: date).isEmpty)
    }

    @Test("a publication refused for good stops the worker, naming its topic and request")
    func refusedPublication() {
        var machine = machine()
        _ = machine.assigned([partition])
        let job = calls(received(&machine, deletion("a"), offset: 0, at: start))[0]
        let publication = publications(machine.callFinished(job.id, of: .deleteInstance, ok(1), now: start, date: date))[0]
        let refused = machine.published(
            publication, .refused(topic: "outcomes", KafkaError.closed(operation: "send")), now: start, date: date)
        #expect(refused.contains { if case .fail(.publish(let topic, let id, _)) = $0 { topic == "outcomes" && id == "a" } else { false } })
        #expect(stored(refused).isEmpty)
        #expect(paused(refused) == [true], "the stop begins at once: the partitions pause")
        #expect(received(&machine, deletion("b"), offset: 1, at: start).isEmpty, "no record is taken once the worker cannot publish")
        #expect(machine.recordsRead == 1)
    }

    @Test("the first failure is the one recorded and begins the stop; the stop sequence is claimed once, by a failure or a shutdown")
    func failureAndStopClaimedOnce() {
        var machine = machine()
        _ = machine.assigned([partition])
        let first = PipelineWorkerError.unpublishable(requestID: "a", reason: "first")
        let begun = machine.failed(first, now: start)
        #expect(begun.map(paused) == [true], "the stop begins: the partitions pause")
        #expect(machine.failed(.unpublishable(requestID: "b", reason: "second"), now: start) == nil)
        #expect(machine.failure?.description == first.description)
        #expect(machine.claimStop() && !machine.claimStop(), "one stop sequence, however many ask")
    }

    @Test(
        "a failure ends the stop's drain at once, undrained, and no later one begins (what it waits for could never be published); a revoke's drain is left to the stop"
    )
    func failureEndsTheStopsDrain() throws {
        var machine = machine()
        _ = machine.assigned([partition])
        let job = try #require(calls(received(&machine, deletion("a"), offset: 0, at: start)).first)
        let revoke = machine.beginDrain(.partitions([partition], machine.book.handles(in: [partition])))
        #expect(revoke != nil, "a call of the partition is running")
        let claimed = machine.claimStop()
        #expect(claimed)
        _ = machine.beginStop(now: start)
        let begun = machine.beginDrain(.all)
        let drain = try #require(begun, "a call is running")
        let failure = machine.failed(.unpublishable(requestID: "b", reason: "refused for good"), now: start + .seconds(1))
        let failed = try #require(failure)
        let ended = failed.compactMap { if case .drainEnded(let id, let drained) = $0 { (id, drained) } else { nil } }
        #expect(ended.map(\.0) == [drain] && ended.map(\.1) == [false], "only the stop's drain ends, undrained: \(failed)")
        let expired = machine.expireDrain(drain)
        #expect(!expired, "nothing left to expire")
        let late = machine.beginDrain(.all)
        #expect(late == nil, "a stop's drain begun after the failure (a SIGTERM then) does not wait")

        // The revoke's drain is the stop's to end; until then it ends as ever, with its call.
        let answered = machine.callFinished(job.id, of: .deleteInstance, ok(1), now: start + .seconds(2), date: date)
        let acknowledged = machine.published(try #require(publications(answered).first), .delivered, now: start + .seconds(3), date: date)
        #expect(acknowledged.contains { if case .drainEnded(let id, true) = $0 { id == revoke } else { false } }, "\(acknowledged)")
    }

    @Test("the breaker open with only suspect calls waiting at the in-flight bound lets new records in, the one way to close it")
    func breakerAwaitingNewWorkWaivesBackpressure() {
        var machine = machine { $0.maxInFlightItems = 1 }
        _ = machine.assigned([partition])
        let actions = received(&machine, deletion("stuck"), offset: 0, at: start)
        #expect(machine.readsHeld, "one item held of one: reads are held")
        let job = calls(actions)[0]
        let outage = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "", retryAfter: nil)
        let failed = machine.callFinished(job.id, of: .deleteInstance, .failed(outage), now: start + .milliseconds(10), date: date)
        #expect(!machine.dispatch.breakerClosed, "one outage opens a breaker of threshold 1")
        #expect(machine.dispatch.awaitsNewWork, "only the suspect attempt waits")
        #expect(!machine.readsHeld, "a new record is the one thing that can show whether the backend or the item fails")
        #expect(failed.contains { if case .wakeReader = $0 { true } else { false } }, "the held reader goes on")
        // Past the hold limit the partitions are not paused for backpressure while it waits so.
        let expired = machine.holdExpired(now: start + ReadGate.holdLimit + .milliseconds(10))
        #expect(!paused(expired).contains(true))
        #expect(!machine.consumerPaused)
        // A new record arrives past the bound, its cooldown over: its call is the breaker's probe,
        // whose success closes it.
        let next = received(&machine, deletion("fresh"), offset: 1, at: start + ReadGate.holdLimit + .milliseconds(20))
        #expect(machine.recordsRead == 2)
        let probe = calls(next)
        #expect(probe.map { Array($0.items) } == [["fid-fresh-0"]], "the new record's call probes, not the suspect's")
        _ = machine.callFinished(probe[0].id, of: .deleteInstance, ok(1), now: start + ReadGate.holdLimit + .milliseconds(30), date: date)
        #expect(machine.dispatch.breakerClosed)
        #expect(!machine.dispatch.awaitsNewWork)
    }

    @Test("the waiver reads at most probeRecords records past the bound per opening of the breaker, then holds again")
    func waiverEnds() {
        var machine = machine { $0.maxInFlightItems = 1 }
        _ = machine.assigned([partition])
        let outage = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "", retryAfter: nil)
        var now = start
        var offset: Int64 = 0
        /// Admits one record, runs its call as the breaker's probe (timers fired until it starts)
        /// and fails it like an outage.
        func admitAndFail(_ machine: inout WorkerMachine) {
            var started = calls(received(&machine, deletion("r\(offset)"), offset: offset, at: now))
            offset += 1
            while started.isEmpty {
                now += .seconds(5)
                started = calls(machine.timerFired(now: now, date: date))
            }
            now += .milliseconds(10)
            _ = machine.callFinished(started[0].id, of: .deleteInstance, .failed(outage), now: now, date: date)
        }
        admitAndFail(&machine)  // at the bound, and the breaker opens
        for read in 1...WorkerMachine.probeRecords {
            #expect(!machine.readsHeld && !machine.consumerPaused, "record \(read) past the bound may be read")
            admitAndFail(&machine)
        }
        #expect(machine.dispatch.awaitsNewWork, "every attempt failed like an outage")
        now += ReadGate.holdLimit
        _ = machine.holdExpired(now: now)
        #expect(machine.readsHeld || machine.consumerPaused, "after \(WorkerMachine.probeRecords) records past the bound, reads stop")
        #expect(machine.recordsRead == WorkerMachine.probeRecords + 1)
    }
}
