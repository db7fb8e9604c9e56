import Foundation
import Kafka
import Synchronization
import Testing

@Suite("Producer", .serialized)
struct ProducerTests {
    @Test("closing the producer ends every send still waiting for the broker: none waits forever")
    func closeEndsWaitingSends() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("close-waiting")
        try kafka.createTopic(topic, partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration(["message.timeout.ms": "600000"]))
        _ = try await producer.send(topic: topic, key: nil, value: Array("warm-up".utf8))
        try await kafka.setBrokerDown(1)
        let sends = (0..<20).map { i in
            Task { () -> Result<KafkaDeliveryReport, KafkaError> in
                do throws(KafkaError) { return .success(try await producer.send(topic: topic, key: nil, value: Array("v\(i)".utf8))) } catch {
                    return .failure(error)
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        await producer.close(timeout: .milliseconds(500))
        let results = try await withTimeout(60, "sends to end after close") {
            var results: [Result<KafkaDeliveryReport, KafkaError>] = []
            for send in sends { results.append(await send.value) }
            return results
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { if case .failure = $0 { true } else { false } }, "nothing reached a broker that was down")
        try kafka.setBrokerUp(1)
    }

    @Test("cancelling the task of a send waiting for a broker that is down ends the send at once: it does not wait for message.timeout.ms")
    func cancelEndsWaitingSend() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("cancel-waiting")
        try kafka.createTopic(topic)
        let producer = try KafkaProducer(configuration: kafka.configuration(["message.timeout.ms": "600000"]))
        _ = try await producer.send(topic: topic, key: nil, value: Array("warm-up".utf8))
        try await kafka.setBrokerDown(1)
        let send = Task { () -> Result<KafkaDeliveryReport, KafkaError> in
            do throws(KafkaError) { return .success(try await producer.send(topic: topic, key: nil, value: Array("during".utf8))) } catch {
                return .failure(error)
            }
        }
        // Whether the record reached librdkafka before the cancel or not, the send must end.
        try await Task.sleep(for: .milliseconds(200))
        send.cancel()
        let result = try await value(of: send, within: 60, "the cancelled send to end")
        guard case .failure(let error) = result else {
            Issue.record("a send to a broker that is down succeeded: \(result)")
            return
        }
        #expect("\(error)".contains("cancel"), "\(error)")
        try kafka.setBrokerUp(1)
        await producer.close(timeout: .seconds(5))
    }

    @Test("a send to a partition whose leader is down completes after the broker comes back")
    func leaderDownThenUp() async throws {
        let kafka = try EmbeddedKafka(brokers: 3)
        let topic = uniqueName("leader-down")
        try kafka.createTopic(topic, partitions: 1)
        try kafka.setPartitionLeader(topic: topic, partition: 0, broker: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration(["message.timeout.ms": "120000"]))
        // Warm up: metadata known, producer id assigned.
        let first = try await producer.send(topic: topic, key: nil, value: Array("before".utf8))
        #expect(first.partition == 0)

        try await kafka.setBrokerDown(2)
        let done = Atomic<Bool>(false)
        let send = Task {
            defer { done.store(true, ordering: .releasing) }
            return try await producer.send(topic: topic, key: nil, value: Array("during".utf8))
        }
        try await Task.sleep(for: .seconds(2))
        let completedEarly = done.load(ordering: .acquiring)
        #expect(!completedEarly, "the send completed while its leader was down")
        try kafka.setBrokerUp(2)
        let report = try await withTimeout(90, "send after broker came back") { try await send.value }
        #expect(report.partition == 0)
        #expect(report.offset == first.offset + 1)
        await producer.close()
    }

    @Test("a closed producer refuses sends with .closed")
    func closedProducer() async throws {
        let kafka = try EmbeddedKafka()
        let producer = try KafkaProducer(configuration: kafka.configuration())
        await producer.close()
        await #expect(throws: KafkaError.closed(operation: "send to t")) {
            try await producer.send(topic: "t", key: nil, value: [1])
        }
    }

    @Test("a full local queue waits, then fails with .queueFull naming the topic")
    func queueFull() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("full")
        try kafka.createTopic(topic)
        try await kafka.setBrokerDown(1)
        let producer = try KafkaProducer(
            configuration: kafka.configuration(["queue.buffering.max.messages": "2", "message.timeout.ms": "30000"]),
            enqueueTimeout: .milliseconds(300))
        let pending = (0..<2).map { i in Task { try await producer.send(topic: topic, key: nil, value: [UInt8(i)]) } }
        try await Task.sleep(for: .milliseconds(200))
        let error = await #expect(throws: KafkaError.self) {
            try await producer.send(topic: topic, key: nil, value: [9])
        }
        guard case .queueFull(let name, _) = error else {
            Issue.record("expected queueFull, got \(String(describing: error))")
            return
        }
        #expect(name == topic)
        try kafka.setBrokerUp(1)
        for task in pending { _ = try await withTimeout(60) { try await task.value } }
        await producer.close()
    }

    @Test("sendInOrder stores one key's records in the order given, through a local queue far smaller than the batch")
    func sendInOrder() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("in-order")
        try kafka.createTopic(topic, partitions: 3)
        let producer = try KafkaProducer(configuration: kafka.configuration(["queue.buffering.max.messages": "50"]))
        let records = (0..<3_000).map { i in
            KafkaProducerRecord(topic: topic, key: Array("key-\(i % 3)".utf8), value: Array("\(i)".utf8))
        }
        let (count, acknowledged) = try await withTimeout(120, "sending in order") { [records] in
            var seen = Set<Int>()
            let count = try await producer.sendInOrder(records) { index, _ in seen.insert(index) }
            return (count, seen)
        }
        #expect(count == 3_000 && acknowledged == Set(0..<3_000))
        await producer.close()

        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        var perKey: [String: [Int]] = [:]
        for try await record in reader.records {
            perKey[String(decoding: record.key ?? [], as: UTF8.self), default: []].append(Int(String(decoding: record.value ?? [], as: UTF8.self)) ?? -1)
        }
        reader.close()
        for k in 0..<3 { #expect(perKey["key-\(k)"] == Array(stride(from: k, to: 3_000, by: 3)), "key-\(k) out of order") }
    }
}
