import Kafka
import Testing

@Suite("Kafka configuration")
struct KafkaConfigurationTests {
    @Test("an unknown property fails with an error naming it, not its value (it may be a misspelt secret)")
    func unknownProperty() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration["no.such.property"] = "42"
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        guard case .invalidConfiguration(let property, let value, _) = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(property == "no.such.property")
        #expect(value == KafkaConfiguration.redacted)
        #expect(error?.description.contains("no.such.property") == true)
        #expect(error?.description.contains("42") == false, "\(error?.description ?? "")")
    }

    @Test("an invalid value fails with an error naming property and value (acks, by the producer that reads it)")
    func invalidValue() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration["acks"] = "banana"
        let error = #expect(throws: KafkaError.self) {
            try KafkaProducer(configuration: configuration)
        }
        #expect(error == .invalidConfiguration(property: "acks", value: "banana", reason: error.flatMap(reason) ?? ""))
        #expect(error?.description.contains("acks=banana") == true)
    }

    @Test("-X assignments pass through verbatim; malformed ones are refused")
    func assignments() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "b:1")
        try configuration.apply(assignment: "sasl.mechanism=PLAIN")
        try configuration.apply(assignment: "client.id=a=b")
        #expect(configuration["sasl.mechanism"] == "PLAIN")
        #expect(configuration["client.id"] == "a=b")
        #expect(throws: KafkaError.malformedPropertyAssignment("novalue")) { try configuration.apply(assignment: "novalue") }
        #expect(throws: KafkaError.malformedPropertyAssignment("=x")) { try configuration.apply(assignment: "=x") }
    }

    @Test("topic specs parse name:partitions and name the bad text")
    func topicSpecs() throws {
        #expect(try KafkaTopicSpec(parsing: "orders:6") == KafkaTopicSpec(name: "orders", partitions: 6))
        #expect(try KafkaTopicSpec(parsing: "orders") == KafkaTopicSpec(name: "orders", partitions: 1))
        let error = #expect(throws: KafkaError.self) { try KafkaTopicSpec(parsing: "orders:zero") }
        #expect(error?.description.contains("orders:zero") == true)
        let huge = #expect(throws: KafkaError.self) { try KafkaTopicSpec(parsing: "orders:3000000000") }
        #expect(huge?.description.contains("from 1 to 10000") == true, "no trap converting it for librdkafka")
    }

    private func reason(_ error: KafkaError) -> String? {
        if case .invalidConfiguration(_, _, let reason) = error { return reason }
        return nil
    }
}
