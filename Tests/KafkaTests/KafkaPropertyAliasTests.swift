import Kafka
import Testing

/// librdkafka's aliases (`metadata.broker.list` for `bootstrap.servers`, …) name one property:
/// a setting recorded under either name is the same setting, so layers, defaults and the log
/// agree with what librdkafka applies.
@Suite("Kafka property aliases: one property, one name")
struct KafkaPropertyAliasTests {
    @Test("metadata.broker.list from a file loses to the brokers layer, and the log names the winner once")
    func brokerListAlias() throws {
        var settings = KafkaSettings()
        settings.set("bootstrap.servers", to: "localhost:9092", layer: .builtInDefault, origin: "the default")
        try settings.apply(file: "metadata.broker.list=file:9092\n", named: "k.properties")
        #expect(settings.configuration.properties == ["bootstrap.servers": "file:9092"], "the file's alias replaces the default")
        settings.set("bootstrap.servers", to: "env:9092", layer: .brokers, origin: "$IIDBATCH_BROKERS")
        try settings.apply(file: "metadata.broker.list=later:9092\n", named: "k.properties")
        #expect(settings.configuration.properties == ["bootstrap.servers": "env:9092"])
        #expect(settings.entries["bootstrap.servers"]?.origin == "$IIDBATCH_BROKERS")
        #expect(!settings.description.contains("metadata.broker.list"), "\(settings.description)")
        #expect(!settings.description.contains("file:9092"), "\(settings.description)")
    }

    @Test("every alias librdkafka documents for a property we or operators set maps to one name")
    func aliases() throws {
        let pairs = [
            ("metadata.broker.list", "bootstrap.servers"), ("queue.buffering.max.ms", "linger.ms"), ("request.required.acks", "acks"),
            ("delivery.timeout.ms", "message.timeout.ms"), ("sasl.mechanism", "sasl.mechanisms"),
            ("max.in.flight", "max.in.flight.requests.per.connection"), ("max.partition.fetch.bytes", "fetch.message.max.bytes"),
            ("retries", "message.send.max.retries"), ("compression.type", "compression.codec"),
        ]
        for (alias, name) in pairs {
            #expect(KafkaPropertyName.canonical(alias) == name, "\(alias)")
            #expect(KafkaPropertyName.canonical(name) == name, "\(name)")
        }
        #expect(KafkaPropertyName.canonical("client.id") == "client.id")
        var environment = KafkaSettings()
        try environment.apply(environment: ["IIDBATCH_KAFKA_QUEUE_BUFFERING_MAX_MS": "7"])
        try environment.apply(assignment: "linger.ms=9", origin: "-X")
        #expect(environment.configuration.properties == ["linger.ms": "9"], "-X over the environment, under either name")
    }

    @Test("a default under one name does not override the caller's value under the other")
    func defaultsUnderAliases() {
        var configuration = KafkaConfiguration(properties: ["delivery.timeout.ms": "1000", "metadata.broker.list": "b:1"])
        #expect(configuration.properties == ["message.timeout.ms": "1000", "bootstrap.servers": "b:1"])
        configuration = configuration.withDefaults(["message.timeout.ms": "15000", "linger.ms": "20"])
        #expect(configuration["message.timeout.ms"] == "1000")
        #expect(configuration["delivery.timeout.ms"] == "1000", "either name reads the one property")
        configuration["queue.buffering.max.ms"] = "5"
        #expect(configuration.properties == ["message.timeout.ms": "1000", "bootstrap.servers": "b:1", "linger.ms": "5"])
        try? configuration.apply(assignment: "request.required.acks=1")
        #expect(configuration["acks"] == "1")
    }
}
