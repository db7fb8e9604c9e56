import Testing

@testable import Kafka

@Suite("Consumer close and destroy never abort the process", .serialized)
struct ConsumerDestroyTests {
    @Test("a cooperative-sticky member that joined its group but never got an assignment is closed and released without aborting the process")
    func joinedWithoutAssignment() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("no-assignment")
        try kafka.createTopic(topic)
        // Every SyncGroup fails: the member's JoinGroup succeeds (the assignor is chosen), and its
        // assignment never comes. librdkafka 2.0.2 asserts in rd_kafka_destroy then.
        kafka.injectRequestErrors(.syncGroup, Array(repeating: .rebalanceInProgress, count: 100))
        let lines = Collected<String>()
        var configuration = kafka.consumerConfiguration(["debug": "cgrp"])
        configuration.logHandler = { _, line in lines.append(line) }
        var consumer: KafkaConsumer? = try KafkaConsumer(configuration: configuration, groupID: uniqueName("joined"), topics: [topic])
        let name = try #require(consumer?.client.name)
        try await awaitChanges(until: "the member to join and its SyncGroup to fail") {
            lines.all.contains { $0.contains("SyncGroup response: Broker: Group rebalance in progress") }
        }
        try? await consumer?.close(timeout: .seconds(2))
        consumer = nil
        // Destroyed (the abort, without the workaround, comes here) or kept: settled either way.
        #expect(await RDKafkaClientRegistry.shared.waitUntilSettled([name], deadline: .now + .seconds(60)))
        let kept = RDKafkaClientRegistry.shared.kept.contains(name)
        #expect(kept == RDKafkaClient.destroyAbortsWithoutAssignorState, "librdkafka \(KafkaVersion.librdkafka)")
        #expect(kept == lines.all.contains { $0.contains("\(name) is not destroyed") }, "a kept consumer says so")
        kafka.clearRequestErrors(.syncGroup)
    }

    @Test("a cooperative-sticky member closed before its first assignment waits for it, and is then destroyed")
    func closedWhileJoining() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("joining")
        try kafka.createTopic(topic)
        let lines = Collected<String>()
        var configuration = kafka.consumerConfiguration()
        configuration.logHandler = { _, line in lines.append(line) }
        var consumer: KafkaConsumer? = try KafkaConsumer(configuration: configuration, groupID: uniqueName("joining"), topics: [topic])
        let name = try #require(consumer?.client.name)
        // Closed at once, while it joins: before 2.3.0 the close first waits for the assignment.
        try await consumer?.close(timeout: .seconds(30))
        consumer = nil
        #expect(await RDKafkaClientRegistry.shared.waitUntilSettled([name], deadline: .now + .seconds(60)))
        #expect(!RDKafkaClientRegistry.shared.kept.contains(name), "\(lines.all)")
    }

    /// A member of a new group on a new topic of `records` records, which has read one of them (so
    /// it has its assignment).
    private func memberThatRead(_ kafka: EmbeddedKafka, _ name: String, records: Int) async throws -> KafkaConsumer {
        let topic = uniqueName(name)
        try kafka.createTopic(topic)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await produce(producer, topic: topic, partitions: 0..<1, numbers: 0..<records)
        await producer.close()
        let consumer = try KafkaConsumer(configuration: kafka.consumerConfiguration(), groupID: uniqueName(name), topics: [topic])
        let (read, _) = try await readRecords(consumer, count: 1, within: .seconds(60))
        #expect(read.count == 1)
        return consumer
    }

    @Test("closing a member whose queue still holds fetched records drops them, without aborting the process")
    func closeWithRecordsQueued() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        // One record read: the rest of its fetch waits in the consumer's queue, which the close
        // forwards to the queue it serves.
        let consumer = try await memberThatRead(kafka, "queued", records: 200)
        try await consumer.close(timeout: .seconds(10))
    }

    @Test("a member with an assignment dropped without a close is destroyed: the destroy's own close is not left waiting for an unassign")
    func droppedWithoutClose() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        var consumer: KafkaConsumer? = try await memberThatRead(kafka, "dropped", records: 3)
        let name = try #require(consumer?.client.name)
        consumer = nil
        #expect(await RDKafkaClientRegistry.shared.waitUntilSettled([name], deadline: .now + .seconds(30)))
        #expect(!RDKafkaClientRegistry.shared.kept.contains(name))
    }

    /// A member of an eager group (`range`) that read a record, and another member joining its
    /// group, whose join makes the first revoke everything; the first member is polled (without
    /// handing anything out) until librdkafka ran its revoke callback.
    private func memberWithRevokeQueued(_ kafka: EmbeddedKafka, _ name: String) async throws -> (member: KafkaConsumer, joiner: KafkaConsumer) {
        let topic = uniqueName(name)
        try kafka.createTopic(topic)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await produce(producer, topic: topic, partitions: 0..<1, numbers: 0..<3)
        await producer.close()
        let group = uniqueName(name)
        let eager = kafka.consumerConfiguration(["partition.assignment.strategy": "range"])
        let member = try KafkaConsumer(configuration: eager, groupID: group, topics: [topic])
        let (read, _) = try await readRecords(member, count: 1, within: .seconds(60))
        #expect(read.count == 1)
        let joiner = try KafkaConsumer(configuration: eager, groupID: group, topics: [topic])
        let joining = Task { _ = try? await readRecords(joiner, count: 1, within: .seconds(20)) }
        defer { joining.cancel() }
        let queued = {
            member.client.context.events.withLock { events -> Bool in
                var copy = events
                while let event = copy.next() { if case .rebalance(.revoked) = event { return true } }
                return false
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !queued(), ContinuousClock.now < deadline { _ = member.client.pollConsumer() }
        #expect(queued(), "the revoke callback ran")
        return (member, joiner)
    }

    @Test("a revoke librdkafka reported but nobody asked for when the close began is carried out: the close does not wait for it")
    func closeWithRevokeQueued() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let (member, joiner) = try await memberWithRevokeQueued(kafka, "revoke-queued")
        try await member.close(timeout: .seconds(8))
        try? await joiner.close(timeout: .seconds(10))
    }

    @Test("a member dropped without a close with a revoke reported and not asked for is destroyed: the destroy's close does not wait forever")
    func droppedWithRevokeQueued() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        var (member, joiner): (KafkaConsumer?, KafkaConsumer) = try await memberWithRevokeQueued(kafka, "revoke-dropped")
        let name = try #require(member?.client.name)
        member = nil
        #expect(await RDKafkaClientRegistry.shared.waitUntilSettled([name], deadline: .now + .seconds(60)))
        try? await joiner.close(timeout: .seconds(10))
    }
}
