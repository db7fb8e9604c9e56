import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// What `iidbatch run` logs of its Kafka settings is what librdkafka applies: an alias in a
/// properties file loses to `$IIDBATCH_BROKERS`, and a misspelt secret's value is never shown.
@Suite("iidbatch run: Kafka aliases and misspelt secrets", .serialized)
struct KafkaSettingsReviewRunTests {
    @Test("a file's metadata.broker.list loses to $IIDBATCH_BROKERS: the run reaches the brokers the log names")
    func brokerListAlias() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "kafka-alias")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "alias-workers")
            let properties = folder.url.appendingPathComponent("kafka.properties").path
            try "metadata.broker.list=127.0.0.1:1\n".write(toFile: properties, atomically: true, encoding: .utf8)
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                ["run", pipeline, "-F", properties, "--credentials", folder.keyPath, "--backend-url", fixture.emulator.baseURL, "--timeout", "20s"],
                environment: ["IIDBATCH_BROKERS": fixture.kafka.bootstrapServers])
            try await worker.waitFor("group alias-workers")
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0, "\(worker.text)")
            let text = worker.text
            #expect(text.contains("bootstrap.servers=\(fixture.kafka.bootstrapServers) (from $IIDBATCH_BROKERS)"), "\(text)")
            #expect(!text.contains("metadata.broker.list="), "\(text)")
        }
    }

    @Test("misspelt secrets in -F and IIDBATCH_KAFKA_* are named, never shown, in the settings line and in librdkafka's refusal (78)")
    func misspeltSecrets() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "kafka-typo")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "typo-workers")
            let properties = folder.url.appendingPathComponent("kafka.properties").path
            try "sasl.pasword=file-typo-secret-4b7\n".write(toFile: properties, atomically: true, encoding: .utf8)
            let worker = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["-F", properties]),
                environment: ["IIDBATCH_KAFKA_SASL_PASSWD": "env-typo-secret-9d1"])
            #expect(try await worker.waitForExit() == 78, "\(worker.text)")
            let text = worker.text
            #expect(text.contains("sasl.pasword=[redacted] (from \(properties) line 1)"), "\(text)")
            #expect(text.contains("sasl.passwd=[redacted] (from $IIDBATCH_KAFKA_SASL_PASSWD)"), "\(text)")
            #expect(text.contains("invalid Kafka property sasl.pass"), "librdkafka's refusal names the property: \(text)")
            #expect(!text.contains("file-typo-secret-4b7") && !text.contains("env-typo-secret-9d1"), "\(text)")
        }
    }
}
