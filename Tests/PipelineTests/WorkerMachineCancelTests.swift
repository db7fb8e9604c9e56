import Foundation
import InstanceAPI
import Kafka
import Testing
import WireJSON

@testable import Pipeline

/// `WorkerMachine` and an operator's cancel (`ControlCancel`), with an injected clock: what has
/// not called the backend ends `cancelled`, what has finishes truthfully, nothing past the bound.
@Suite("WorkerMachine: a cancel ends matching requests that have not called the backend, and nothing else")
struct WorkerMachineCancelTests {
    private let partition = KafkaTopicPartition(topic: "requests", partition: 0)
    private let start = ContinuousClock.now
    private let date = Date(timeIntervalSince1970: 1_800_000_000)
    private var bound: Date { date.addingTimeInterval(-60) }

    private func configuration() -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            name: "deletions", requestTopic: "requests", linger: .zero, concurrency: 1,
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(10)),
            breakerThreshold: 1, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.adaptiveRate.start = 1_000
        return configuration
    }

    private func cancel(batch: String?, requestID: String? = nil, version: Int = 1) -> ControlCancel {
        ControlCancel(
            pipeline: "deletions", batch: batch, requestID: requestID, producedBefore: bound, version: version, updatedAt: bound, updatedBy: "op",
            reason: "wrong list", tag: "t\(version)")
    }

    private func settings(_ file: PipelineConfiguration, paused: Bool = false, cancels: [ControlCancel] = []) -> ControlledSettings {
        let pause = ControlDocument(version: 1, updatedAt: date, updatedBy: "op", reason: "hold", overrides: [.paused: .flag(true)])
        return ControlledSettings(file: file, all: nil, own: paused ? pause : nil, cancels: cancels)
    }

    private func deletion(_ id: String, batch: String?, items: Int = 1) -> PipelineRequest {
        PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: (0..<items).map { "fid-\(id)-\($0)" }, batch: batch)
    }

    /// `request` as record `offset`, produced `age` seconds before the cancel's bound (negative: after it).
    private func receive(_ machine: inout WorkerMachine, _ request: PipelineRequest, offset: Int64, producedBeforeBound age: Double = 10) -> [WorkerAction] {
        let record = KafkaRecord(
            topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: Array(request.jsonBody()),
            timestamp: bound.addingTimeInterval(-age))
        return machine.received(record, .success(request), now: start, date: date)
    }

    private func calls(_ actions: [WorkerAction]) -> [CallJob] {
        actions.compactMap { if case .startCall(let job) = $0 { job } else { nil } }
    }

    private func publications(_ actions: [WorkerAction]) -> [Publication] {
        actions.compactMap { if case .publish(let publication) = $0 { publication } else { nil } }
    }

    private func ok(_ count: Int) -> CallAnswer {
        .items(RunLengthList(Array(repeating: ItemAnswer(ItemResult(.ok)), count: count)))
    }

    @Test("a batch cancel without a bound matches the batch's records whenever produced: a submit still running, or a clock ahead, erases nothing")
    func batchCancelWithoutBound() {
        let file = configuration()
        var unbounded = cancel(batch: "wrong")
        unbounded.producedBefore = nil
        var machine = WorkerMachine(configuration: file, controlled: settings(file, cancels: [unbounded]), now: start)
        _ = machine.assigned([partition])
        let later = receive(&machine, deletion("late", batch: "wrong"), offset: 0, producedBeforeBound: -120)
        #expect(calls(later).isEmpty && publications(later).first?.outcome.status == .cancelled, "produced two minutes after the cancel was written")
        #expect(calls(receive(&machine, deletion("other", batch: "right"), offset: 1, producedBeforeBound: -120)).count == 1)
    }

    @Test("a record the cancel matches is settled cancelled at once: no call, no dead letter, its offset stored once acknowledged")
    func matchingRecordNeverCalls() {
        let file = configuration()
        var machine = WorkerMachine(configuration: file, controlled: settings(file, cancels: [cancel(batch: "wrong")]), now: start)
        _ = machine.assigned([partition])
        let actions = receive(&machine, deletion("a", batch: "wrong", items: 3), offset: 0)
        #expect(calls(actions).isEmpty)
        let published = publications(actions)
        #expect(published.count == 1)
        let outcome = published.first?.outcome
        #expect(outcome?.status == .cancelled && outcome?.counts == [Outcome.cancelledItems: 3] && outcome?.backendCalls == 0)
        #expect(outcome?.batch == "wrong" && outcome?.reason?.contains("by op") == true && outcome?.reason?.contains("wrong list") == true)
        #expect(published.first?.deadLetter == nil, "a cancel is not a failure to replay")
        #expect(
            outcome?.receipt?.map(\.item) == ["fid-a-0", "fid-a-1", "fid-a-2"]
                && outcome?.receipt?.allSatisfy { $0.code == .cancelled && $0.code.rawValue == Outcome.cancelledItems } == true,
            "a cancelled deletion names each installation it left, for the erasure report")
        let acknowledged = machine.published(published[0], .delivered, now: start, date: date)
        #expect(acknowledged.contains { if case .storeOffsets(let offsets) = $0 { offsets == [partition: 1] } else { false } })
    }

    @Test("only the named batch and request id, and only records produced before the bound, are cancelled")
    func selectorAndBound() {
        let file = configuration()
        let cancels = [cancel(batch: "wrong"), cancel(batch: nil, requestID: "x", version: 2)]
        var machine = WorkerMachine(configuration: file, controlled: settings(file, cancels: cancels), now: start)
        _ = machine.assigned([partition])
        #expect(publications(receive(&machine, deletion("b", batch: "right"), offset: 0)).isEmpty, "another batch calls the backend")
        #expect(publications(receive(&machine, deletion("x", batch: "right"), offset: 1)).first?.outcome.status == .cancelled, "the named id")
        #expect(publications(receive(&machine, deletion("c", batch: "wrong"), offset: 2, producedBeforeBound: -1)).isEmpty, "produced after the bound")
        #expect(publications(receive(&machine, deletion("d", batch: nil), offset: 3)).isEmpty, "a request without a batch is not in it")
        #expect(publications(receive(&machine, deletion("e", batch: "wrong"), offset: 4)).first?.outcome.status == .cancelled)
    }

    @Test("a cancel put in force while requests wait (paused) ends them; on resume only the others call; their offsets move past all")
    func cancelWhilePaused() {
        let file = configuration()
        var machine = WorkerMachine(configuration: file, controlled: settings(file, paused: true), now: start)
        _ = machine.assigned([partition])
        for (offset, request) in [deletion("a1", batch: "wrong"), deletion("b1", batch: "right"), deletion("a2", batch: "wrong")].enumerated() {
            #expect(calls(receive(&machine, request, offset: Int64(offset))).isEmpty, "paused: nothing calls")
        }
        let cancelled = machine.apply(settings(file, paused: true, cancels: [cancel(batch: "wrong")]), now: start, date: date)
        #expect(Set(publications(cancelled).map(\.outcome.requestID)) == ["a1", "a2"])
        #expect(publications(cancelled).allSatisfy { $0.outcome.status == .cancelled })
        let resumed = machine.apply(settings(file, cancels: [cancel(batch: "wrong")]), now: start, date: date)
        let started = calls(resumed)
        #expect(started.count == 1 && started.first.map { $0.origins.runs.map(\.request) }?.count == 1)
        var last: [WorkerAction] = []
        for publication in publications(cancelled) { last += machine.published(publication, .delivered, now: start, date: date) }
        let answered = machine.callFinished(started[0].id, of: .deleteInstance, ok(1), now: start, date: date)
        #expect(publications(answered).map(\.outcome.requestID) == ["b1"])
        last = machine.published(publications(answered)[0], .delivered, now: start, date: date)
        #expect(last.contains { if case .storeOffsets(let offsets) = $0 { offsets == [partition: 3] } else { false } })
    }

    @Test("a cancel read after the stop finished publishes nothing: the worker's producer is closing")
    func cancelAfterStopPublishesNothing() {
        let file = configuration()
        var machine = WorkerMachine(configuration: file, controlled: settings(file, paused: true), now: start)
        _ = machine.assigned([partition])
        _ = receive(&machine, deletion("a1", batch: "wrong"), offset: 0)
        _ = machine.beginStop(now: start)
        _ = machine.finishStop()
        let late = machine.apply(settings(file, paused: true, cancels: [cancel(batch: "wrong")]), now: start, date: date)
        #expect(publications(late).isEmpty && calls(late).isEmpty, "\(late)")
    }

    @Test("a request whose call already started is not cancelled: its calls finish and it is reported as answered")
    func startedRequestFinishes() {
        let file = configuration()
        var machine = WorkerMachine(configuration: file, controlled: settings(file), now: start)
        _ = machine.assigned([partition])
        let first = calls(receive(&machine, deletion("a", batch: "wrong", items: 2), offset: 0))
        #expect(first.count == 1, "concurrency 1: one of the two deletions runs")
        let applied = machine.apply(settings(file, cancels: [cancel(batch: "wrong")]), now: start, date: date)
        #expect(publications(applied).isEmpty, "a call of it started: it is not cancelled")
        let second = calls(machine.callFinished(first[0].id, of: .deleteInstance, ok(1), now: start, date: date))
        #expect(second.count == 1, "its other item is still called: the request finishes whole")
        let done = publications(machine.callFinished(second[0].id, of: .deleteInstance, ok(1), now: start, date: date))
        #expect(done.first?.outcome.status == .succeeded && done.first?.outcome.counts == ["OK": 2])
    }

    @Test("a record delivered again after a revoke abandoned it mid-call is not cancelled: that call may still take effect")
    func redeliveryAfterAbandonedCallIsNotCancelled() {
        let file = configuration()
        var machine = WorkerMachine(configuration: file, controlled: settings(file), now: start)
        _ = machine.assigned([partition])
        let first = calls(receive(&machine, deletion("a", batch: "wrong"), offset: 0))
        #expect(first.count == 1)
        // The partition goes while the call runs; the drain gives up; a cancel of the batch comes;
        // the partition comes back (cooperative-sticky often does) and the record is read again.
        _ = machine.revokeStarted([partition], lost: false, now: start, date: date)
        _ = machine.revokeFinished([partition], lost: false, now: start)
        _ = machine.apply(settings(file, cancels: [cancel(batch: "wrong")]), now: start, date: date)
        _ = machine.assigned([partition])
        let again = receive(&machine, deletion("a", batch: "wrong"), offset: 0)
        #expect(publications(again).allSatisfy { $0.outcome.status != .cancelled }, "the first delivery's call may delete: not cancelled")
        #expect(calls(again).count + machine.dispatch.runningCalls >= 1, "it is called again instead, and answered truthfully")
        // Another record of the batch, never called, is still cancelled.
        let other = receive(&machine, deletion("b", batch: "wrong"), offset: 1)
        #expect(publications(other).map(\.outcome.status) == [.cancelled])
    }
}
