import Testing

@testable import Kafka

@Suite("RDKafkaClient: a producer's main queue served by a task, not a thread")
struct RDKafkaClientTests {
    @Test("delivery reports reach their sends, and the task serving them never keeps the client alive: dropped, it goes")
    func servedThenDropped() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("main-queue")
        try kafka.createTopic(topic)
        var client: RDKafkaClient? = try RDKafkaClient(kind: .producer, configuration: kafka.configuration())
        for round in 0..<3 {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<RDKafkaDelivery.Result, Never>) in
                let opaque = RDKafkaDelivery { continuation.resume(returning: $0) }.retainedOpaque()
                switch client!.produce(topic: topic, partition: 0, key: nil, value: Array("r\(round)".utf8), headers: [], opaque: opaque) {
                case .enqueued: break
                case .queueFull: RDKafkaDelivery.release(opaque, with: .queueFull)
                case .failed(let error): RDKafkaDelivery.release(opaque, with: .failed(error))
                }
            }
            guard case .delivered(let report) = result else {
                Issue.record("round \(round): \(result)")
                return
            }
            #expect(report.topic == topic && report.offset == Int64(round))
        }
        weak let dropped = client
        client = nil
        // The task holds the client only inside one rd_kafka_poll(0), which returns at once.
        try await withTimeout(30, "the dropped client to go") {
            while dropped != nil { await Task.yield() }
        }
        #expect(dropped == nil)
    }

    @Test("a consumer without a group id is refused with the property named, before librdkafka makes a handle")
    func consumerNeedsGroup() throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        #expect(throws: KafkaError.invalidConfiguration(property: "group.id", value: "", reason: "a consumer needs a group id")) {
            _ = try RDKafkaClient(kind: .consumer, configuration: kafka.configuration())
        }
    }
}
