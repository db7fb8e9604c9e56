import Kafka
import Testing

@Suite("Embedded Kafka and admin", .serialized)
struct EmbeddedKafkaTests {
    @Test("metadata lists the brokers and created topics; an unknown topic is named")
    func metadata() async throws {
        let kafka = try EmbeddedKafka(brokers: 3, topics: [KafkaTopicSpec(name: "alpha", partitions: 3), KafkaTopicSpec(name: "beta")])
        let admin = try KafkaAdmin(configuration: kafka.configuration())
        defer { admin.close() }
        let metadata = try await admin.metadata()
        #expect(metadata.brokers.map(\.id) == [1, 2, 3])
        #expect(metadata.brokers.allSatisfy { $0.host == "127.0.0.1" && $0.port > 0 })
        #expect(try await admin.listTopics().contains(["alpha", "beta"]))
        #expect(try await admin.describeTopic("alpha").partitions.map(\.id) == [0, 1, 2])
        let error = await #expect(throws: KafkaError.self) { try await admin.describeTopic("nope") }
        #expect(error?.description.contains("'nope'") == true)
    }

    @Test("a topic the cluster has already: createTopic refuses it, naming it; createTopicIfAbsent leaves it")
    func topicTwice() throws {
        let kafka = try EmbeddedKafka(brokers: 1, topics: [KafkaTopicSpec(name: "twice", partitions: 2)])
        defer { kafka.shutdown() }
        let error = #expect(throws: KafkaError.self) { try kafka.createTopic("twice", partitions: 2) }
        #expect(error?.description.contains("twice") == true && error?.description.contains("TOPIC_ALREADY_EXISTS") == true, "\(String(describing: error))")
        #expect(try kafka.createTopicIfAbsent(KafkaTopicSpec(name: "twice", partitions: 2)) == false)
        #expect(try kafka.createTopicIfAbsent(KafkaTopicSpec(name: "once", partitions: 2)))
    }

    @Test("a fixed bootstrap port forwards to the cluster; clients follow the advertised brokers")
    func fixedPort() async throws {
        var kafka: EmbeddedKafka?
        for _ in 0..<20 where kafka == nil {
            kafka = try? EmbeddedKafka(brokers: 2, port: Int.random(in: 29_000..<32_000))
        }
        let cluster = try #require(kafka)
        #expect(cluster.bootstrapServers != cluster.brokerAddresses)
        let topic = uniqueName("fixed")
        try cluster.createTopic(topic, partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.configuration())
        for i in 0..<20 { _ = try await producer.send(topic: topic, key: Array("\(i)".utf8), value: [UInt8(i)]) }
        await producer.close()
        let consumer = try KafkaConsumer(configuration: cluster.consumerConfiguration(), groupID: uniqueName("g"), topics: [topic])
        let read = try await readRecords(consumer, count: 20, within: .seconds(60))
        #expect(Set(read.records.compactMap { $0.value?.first }) == Set(0..<20))
        try await consumer.close()
        cluster.shutdown()
    }

    @Test("a port already in use is refused with an error naming it")
    func portInUse() throws {
        var first: EmbeddedKafka?
        var port = 0
        for _ in 0..<20 where first == nil {
            port = Int.random(in: 29_000..<32_000)
            first = try? EmbeddedKafka(port: port)
        }
        #expect(first != nil)
        let error = #expect(throws: KafkaError.self) { try EmbeddedKafka(port: port) }
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
    }

    @Test("injected produce errors are retried by the idempotent producer")
    func injectedErrors() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("inject")
        try kafka.createTopic(topic)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        _ = try await producer.send(topic: topic, key: nil, value: [0])
        kafka.injectRequestErrors(.produce, [.notEnoughReplicas, .notEnoughReplicas])
        let report = try await withTimeout(60) { try await producer.send(topic: topic, key: nil, value: [1]) }
        #expect(report.offset == 1)
        await producer.close()
    }
}

@Suite("Admin against the mock cluster")
struct AdminOnMockTests {
    @Test("createTopics, which the mock cluster does not implement, fails with a clear error instead of hanging")
    func createTopicsUnsupported() async throws {
        let kafka = try EmbeddedKafka()
        let admin = try KafkaAdmin(configuration: kafka.configuration())
        defer { admin.close() }
        let error = await #expect(throws: KafkaError.self) {
            try await withTimeout(60) { try await admin.createTopics([KafkaTopicSpec(name: "made-by-admin", partitions: 2)], timeout: .seconds(5)) }
        }
        #expect(error?.description.contains("made-by-admin") == true, "\(String(describing: error))")
    }
}
