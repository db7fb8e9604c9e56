import Foundation
import InstanceAPI
import Kafka
import Testing
import WireJSON

@testable import Pipeline

/// `WorkerMachine` and a record delivered again after a revoke abandoned it while its call ran,
/// with an injected clock: the earlier call's answer is never read, so the new delivery's first
/// attempt is read as a retry (a `groups.remove` that finds its members gone is `ALREADY_ABSENT`).
@Suite("WorkerMachine: a record delivered again after its abandoned call is called as a retry")
struct WorkerMachineRedeliveryTests {
    private let partition = KafkaTopicPartition(topic: "requests", partition: 0)
    private let start = ContinuousClock.now
    private let date = Date(timeIntervalSince1970: 1_800_000_000)

    private func removal(_ id: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .groupsRemove, target: .group(name: "g-\(id)", key: "k-\(id)"), items: ["t-\(id)"])
    }

    private func receive(_ machine: inout WorkerMachine, _ request: PipelineRequest, offset: Int64) -> [CallJob] {
        let record = KafkaRecord(
            topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: Array(request.jsonBody()), timestamp: date)
        return calls(machine.received(record, .success(request), now: start, date: date))
    }

    private func calls(_ actions: [WorkerAction]) -> [CallJob] {
        actions.compactMap { if case .startCall(let job) = $0 { job } else { nil } }
    }

    @Test("the abandoned delivery's call may have removed the members: the next delivery's first attempt may have taken effect; a record never called is not")
    func redeliveryIsARetry() {
        var configuration = PipelineConfiguration(name: "groups", requestTopic: "requests", linger: .zero, concurrency: 1)
        configuration.adaptiveRate.start = 1_000
        var machine = WorkerMachine(configuration: configuration, controlled: ControlledSettings(file: configuration, all: nil, own: nil), now: start)
        _ = machine.assigned([partition])
        let first = receive(&machine, removal("a"), offset: 0)
        #expect(first.count == 1 && first.first?.mayHaveTakenEffect == false)
        _ = machine.revokeStarted([partition], lost: false, now: start, date: date)
        _ = machine.revokeFinished([partition], lost: false, now: start)
        _ = machine.assigned([partition])
        var started = receive(&machine, removal("a"), offset: 0)
        started += receive(&machine, removal("b"), offset: 1)
        // The abandoned call ends (its answer is read by nobody), freeing the one slot.
        started += calls(machine.callFinished(first[0].id, of: .deviceGroup, .items(RunLengthList([ItemAnswer(ItemResult(.ok))])), now: start, date: date))
        let again = started.first { $0.target == removal("a").target }
        #expect(again?.mayHaveTakenEffect == true, "read as a retry: its NOT_FOUND is ALREADY_ABSENT")
        for job in started where job.target == removal("b").target {
            #expect(!job.mayHaveTakenEffect, "never called before")
        }
    }
}
