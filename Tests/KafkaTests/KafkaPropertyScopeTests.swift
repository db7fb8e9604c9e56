import Kafka
import Testing

/// One configuration serves every client of a process (`IIDBATCH_KAFKA_*` reach them all): a
/// producer or admin client is made without the consumer-only properties, a consumer without
/// the producer-only ones (`KafkaPropertyName.consumerOnly`, `producerOnly`), so librdkafka
/// warns of none (CONFWARN) on every start.
@Suite("Kafka properties by client kind: no CONFWARN for the other kind's properties")
struct KafkaPropertyScopeTests {
    @Test("a producer, an admin client and a consumer made of one shared configuration log no CONFWARN")
    func noWarnings() async throws {
        let lines = Collected<String>()
        var configuration = KafkaConfiguration(
            bootstrapServers: "127.0.0.1:1",
            properties: ["group.instance.id": "iidbatch-0", "session.timeout.ms": "45000", "linger.ms": "20", "acks": "all"])
        configuration.logHandler = { _, line in lines.append(line) }
        let producer = try KafkaProducer(configuration: configuration)
        await producer.close(timeout: .milliseconds(100))
        let admin = try KafkaAdmin(configuration: configuration)
        admin.close()
        let consumer = try KafkaConsumer(configuration: configuration, groupID: uniqueName("scope"), topics: [uniqueName("scope")])
        try? await consumer.close(timeout: .milliseconds(500))
        #expect(!lines.all.contains { $0.contains("CONFWARN") }, "\(lines.all)")
    }

    @Test("the scopes are librdkafka's: consumer-only and producer-only properties are disjoint and hold no global one")
    func scopes() {
        #expect(KafkaPropertyName.consumerOnly.isDisjoint(with: KafkaPropertyName.producerOnly))
        for name in ["group.instance.id", "session.timeout.ms", "group.id", "auto.offset.reset"] {
            #expect(KafkaPropertyName.consumerOnly.contains(name), "\(name)")
        }
        for name in ["linger.ms", "acks", "message.timeout.ms", "enable.idempotence"] {
            #expect(KafkaPropertyName.producerOnly.contains(name), "\(name)")
        }
        for name in ["bootstrap.servers", "client.id", "sasl.username", "statistics.interval.ms", "debug", "retry.backoff.ms"] {
            #expect(!KafkaPropertyName.consumerOnly.contains(name) && !KafkaPropertyName.producerOnly.contains(name), "\(name)")
        }
        let configuration = KafkaConfiguration(properties: ["group.instance.id": "a", "linger.ms": "5", "client.id": "c"])
        #expect(configuration.forProducer.properties == ["linger.ms": "5", "client.id": "c"])
        #expect(configuration.forConsumer.properties == ["group.instance.id": "a", "client.id": "c"])
    }
}
