import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// Per topic name and per device group, changes take effect in offset order, even with calls
/// running concurrently and items being retried.
@Suite("Pipeline end to end: ordering", .serialized)
struct PipelineOrderingTests {
    @Test("interleaved subscribes and unsubscribes end in the state their offset order gives, retries included")
    func interleavedTopicChanges() async throws {
        try await withPipelineFixture(partitions: 3, faults: FaultPlan(itemErrors: ["INTERNAL": 0.2])) { fixture in
            let tokens = fixture.seedTokens(30, prefix: "order")
            var random = SplitMix(seed: 2_024)
            var expected: [String: Set<String>] = [:]
            var requests: [PipelineRequest] = []
            for n in 0..<400 {
                let topic = "topic-\(random.next(8))"
                let subset = Set((0..<(1 + random.next(10))).map { _ in tokens[random.next(tokens.count)] })
                let subscribe = random.next(2) == 0
                if subscribe { expected[topic, default: []].formUnion(subset) } else { expected[topic, default: []].subtract(subset) }
                requests.append(
                    PipelineRequest(
                        id: "order-\(n)", op: subscribe ? .topicsSubscribe : .topicsUnsubscribe, target: .topic(topic), items: subset.sorted()))
            }
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.concurrency = 16
                    $0.linger = .milliseconds(5)
                    $0.retry.maxAttempts = 30
                })
            try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            let statistics = await worker.worker.currentStatistics()
            await worker.stop()

            #expect(outcomes.values.allSatisfy { $0.status == .succeeded })
            #expect(statistics.retries > 0, "the faults forced retries")
            #expect(statistics.calls > 20, "work ran as many calls, not one at a time per topic")
            for (topic, members) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(fixture.backend.subscribers(of: topic) == members.sorted(), "\(topic)")
            }
        }
    }

    @Test("create, add and remove of one device group apply in order")
    func deviceGroupOrder() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(itemErrors: ["INTERNAL": 0.2])) { fixture in
            let tokens = fixture.seedTokens(12, prefix: "grp")
            var requests: [PipelineRequest] = []
            for group in 0..<6 {
                let name = "g\(group)"
                requests += [
                    PipelineRequest(id: "\(name)-create", op: .groupsCreate, target: .group(name: name, key: nil), items: Array(tokens[0..<4])),
                    PipelineRequest(id: "\(name)-remove", op: .groupsRemove, target: .group(name: name, key: nil), items: Array(tokens[0..<2])),
                    PipelineRequest(id: "\(name)-add", op: .groupsAdd, target: .group(name: name, key: nil), items: [tokens[0], tokens[10]]),
                    PipelineRequest(id: "\(name)-remove2", op: .groupsRemove, target: .group(name: name, key: nil), items: [tokens[3]]),
                ]
            }
            let worker = try fixture.startWorker(fixture.pipeline { $0.retry.maxAttempts = 30 })
            try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            await worker.stop()
            #expect(
                outcomes.values.allSatisfy { $0.status == .succeeded },
                "\(outcomes.values.filter { $0.status != .succeeded }.map { "\($0.requestID) \($0.counts)" })")
            for group in 0..<6 {
                #expect(fixture.backend.groupMembers("g\(group)")?.sorted() == [tokens[0], tokens[10], tokens[2]].sorted())
            }
        }
    }
}

/// A small seeded generator, so a failing case can be replayed.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
