import Emulator
import Foundation
import InstanceAPI
import Kafka
import Testing

@testable import Pipeline

/// A call withdrawn after a revoke sends nothing more (`SendGate`), over real HTTP against the
/// emulator: not the rest of a job made of several calls, not a call whose gate closed before it
/// began. A late write of an abandoned record could land after the new owner's calls on its key.
@Suite("Send gate: a withdrawn call sends nothing more")
struct SendGateTests {
    @Test("a groups.add by name withdrawn while its key lookup runs never sends the add: the member is not added, and the call fails withdrawn")
    func withdrawnBetweenLookupAndAdd() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(2, prefix: "gate")
            _ = try await fixture.client.createGroup(name: "gated", tokens: [tokens[0]]).value
            let before = fixture.backend.stats["fcm.notification"].calls
            // Every call takes 2 s: the gate closes while the lookup is on its way.
            try fixture.backend.setFaults(FaultPlan(latencyMilliseconds: 2_000))
            let executor = CallExecutor(client: fixture.client)
            let gate = SendGate()
            let call = Task {
                await SendGate.$current.withValue(gate) {
                    await executor.perform(.groupsAdd, calling: .deviceGroup, target: .group(name: "gated", key: nil), items: [tokens[1]])
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            gate.close()
            let answer = await call.value
            guard case .failed(.withdrawn(.deviceGroup), _) = answer else {
                Issue.record("the add was not withdrawn: \(answer)")
                return
            }
            // Time for an add sent anyway to arrive and be answered.
            try await Task.sleep(for: .seconds(3))
            #expect(fixture.backend.stats["fcm.notification"].calls - before == 1, "only the lookup was sent")
            try fixture.backend.setFaults(FaultPlan())
            let key = try #require(try await fixture.client.groupKey(name: "gated").value)
            let members = try await fixture.client.groupMembers(key: key).value
            #expect(members == [tokens[0]], "the member was not added")
        }
    }

    @Test(
        "a worker whose partition is revoked while a groups.add by name looks up its key, and whose drain ends first, never sends that add: the new owner's calls are the only ones"
    )
    func revokedWorkerSendsNoAdd() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let tokens = fixture.seedTokens(4, prefix: "moved")
            for index in 0..<2 { _ = try await fixture.client.createGroup(name: "moved-\(index)", tokens: [tokens[index]]).value }
            let requests = (0..<2).map { index in
                PipelineRequest(id: "add-\(index)", op: .groupsAdd, target: .group(name: "moved-\(index)", key: nil), items: [tokens[2 + index]])
            }
            let before = fixture.backend.stats["fcm.notification"].calls
            // Every call takes 10 s, longer than the group's hand-over (a few seconds on the
            // embedded cluster) and far longer than the drain.
            try fixture.backend.setFaults(FaultPlan(latencyMilliseconds: 10_000))
            let pipeline = fixture.pipeline { $0.drainTimeout = .milliseconds(200) }
            let a = try fixture.startWorker(pipeline)
            let producer = try KafkaProducer(configuration: fixture.kafka.configuration())
            for (index, request) in requests.enumerated() {
                _ = try await producer.send(topic: fixture.requestTopic, key: Array(request.id.utf8), value: Array(request.jsonBody()), partition: Int32(index))
            }
            await producer.close()
            try await waitUntil("A to start both calls") { await a.worker.currentStatistics().calls >= 2 }
            // B joins: a partition moves, revoked from A while its lookup is on its way.
            let b = try fixture.startWorker(pipeline)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id), timeout: .seconds(120))
            #expect(outcomes.values.allSatisfy { $0.status == .succeeded }, "\(outcomes)")
            // An add A sent anyway would have been sent when its lookup came back (10 s in), and
            // answered before the new owner's lookup and add (20 s, from its hand-over) were.
            try await Task.sleep(for: .seconds(2))
            let (ofA, ofB) = (await a.worker.currentStatistics(), await b.worker.currentStatistics())
            await b.stop()
            await a.stop()
            let withdrawn = ofA.callAnswers["fcm.notification"]?["withdrawn"] ?? 0
            #expect(withdrawn >= 1, "A withdrew the moved request's call: \(ofA.callAnswers)")
            // Each request's lookup and add once, where it ended, and a lookup alone for each call
            // withdrawn: no add of A's came after the revoke.
            let calls = fixture.backend.stats["fcm.notification"].calls - before
            #expect(calls == 2 * requests.count + withdrawn, "\(calls) calls; A \(ofA.callAnswers), B \(ofB.callAnswers)")
            try fixture.backend.setFaults(FaultPlan())
            for index in 0..<2 {
                let key = try #require(try await fixture.client.groupKey(name: "moved-\(index)").value)
                let members = try await fixture.client.groupMembers(key: key).value
                #expect(Set(members ?? []) == [tokens[index], tokens[2 + index]])
            }
        }
    }

    @Test("a call whose gate closed before it began sends nothing, and fails withdrawn, not as an outage")
    func closedBeforeTheCall() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(3, prefix: "shut")
            let gate = SendGate()
            gate.close()
            let error = await #expect(throws: InstanceAPIError.self) {
                try await SendGate.$current.withValue(gate) { try await fixture.client.batchAdd(topic: "shut", tokens: tokens) }
            }
            #expect(error == .withdrawn(api: .batchAdd))
            #expect(error?.isOutage == false && error?.mayHaveBeenCarriedOut == false && error?.wasSent == false)
            #expect(fixture.backend.stats["iid.batchAdd"].calls == 0)
            // The same call with the gate open goes through.
            let codes = try await fixture.client.batchAdd(topic: "shut", tokens: tokens).map(\.code)
            #expect(codes == [.ok, .ok, .ok])
        }
    }
}
