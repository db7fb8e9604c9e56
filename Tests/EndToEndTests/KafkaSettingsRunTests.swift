import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing
import WireJSON

/// Kafka settings without secrets in argv: `iidbatch run -F FILE` (kcat's properties file) and
/// `IIDBATCH_KAFKA_*` variables, named with their origins in the run's log, secrets never shown.
@Suite("iidbatch run: Kafka settings from a properties file and the environment", .serialized)
struct KafkaSettingsRunTests {
    @Test("-F sets the brokers and client.id (no --brokers: the default does not override the file); secrets from -F and the environment never appear")
    func propertiesFileAndEnvironment() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "kafka-file")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "file-workers")
            let properties = folder.url.appendingPathComponent("kafka.properties").path
            try """
            # as a SASL deployment would keep it, out of argv
            bootstrap.servers = \(fixture.kafka.bootstrapServers)
            client.id=iidbatch-from-file
            sasl.username=svc-iidbatch
            sasl.password=file-secret-7f3a9
            """.write(toFile: properties, atomically: true, encoding: .utf8)
            let tokens = fixture.seedTokens(2, prefix: "file")
            try await fixture.submit([PipelineRequest(id: "via-file", op: .topicsSubscribe, target: .topic("news"), items: PackedStrings(tokens))])
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                ["run", pipeline, "-F", properties, "--credentials", folder.keyPath, "--backend-url", fixture.emulator.baseURL, "--log-level", "debug"],
                environment: [
                    "IIDBATCH_KAFKA_SSL_KEY_PASSWORD": "env-secret-51c2e", "IIDBATCH_KAFKA_SOCKET_KEEPALIVE_ENABLE": "true", "IIDBATCH_KAFKA_DEBUG": "conf",
                    "IIDBATCH_BROKERS": "",
                ])
            let outcomes = try await fixture.waitForOutcomes(["via-file"])
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            #expect(outcomes["via-file"]?.status == .succeeded)
            let text = worker.text
            #expect(text.contains("bootstrap.servers=\(fixture.kafka.bootstrapServers) (from \(properties) line 2)"), "\(text)")
            #expect(text.contains("client.id=iidbatch-from-file (from \(properties) line 3)"), "\(text)")
            #expect(text.contains("sasl.password=[redacted] (from \(properties) line 5)"), "\(text)")
            #expect(text.contains("ssl.key.password=[redacted] (from $IIDBATCH_KAFKA_SSL_KEY_PASSWORD)"), "\(text)")
            #expect(text.contains("socket.keepalive.enable=true (from $IIDBATCH_KAFKA_SOCKET_KEEPALIVE_ENABLE)"), "\(text)")
            // debug=conf makes librdkafka log each client's configuration too, at debug level.
            #expect(!text.contains("file-secret-7f3a9"), "the file's secret is not in the output")
            #expect(!text.contains("env-secret-51c2e"), "the environment's secret is not in the output")
        }
    }

    @Test("--brokers wins over the file's bootstrap.servers; -X over the environment over the file")
    func precedence() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "kafka-precedence")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "precedence-workers")
            let properties = folder.url.appendingPathComponent("kafka.properties").path
            try "bootstrap.servers=127.0.0.1:1\nclient.id=from-file\nclient.rack=from-file\n".write(toFile: properties, atomically: true, encoding: .utf8)
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                folder.runArguments(fixture, pipeline: pipeline, ["-F", properties, "-X", "client.id=from-x", "--log-level", "warning"]),
                environment: ["IIDBATCH_KAFKA_CLIENT_ID": "from-env", "IIDBATCH_KAFKA_CLIENT_RACK": "from-env"])
            let text = try await worker.waitFor("iidbatch run: Kafka:")
            try await worker.waitFor("group precedence-workers")
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0, "\(worker.text)")
            #expect(text.contains("bootstrap.servers=\(fixture.kafka.bootstrapServers) (from --brokers)"), "\(text)")
            #expect(text.contains("client.id=from-x (from -X)"), "\(text)")
            #expect(text.contains("client.rack=from-env (from $IIDBATCH_KAFKA_CLIENT_RACK)"), "\(text)")
        }
    }

    @Test("a malformed properties file fails naming the file and line, without the line's text")
    func malformedFile() async throws {
        let folder = try OperatorCommand.temporaryFolder("kafka-malformed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let properties = folder.appendingPathComponent("kafka.properties").path
        try "# creds\nsasl.username=svc\nsasl.password hunter2-secret\n".write(toFile: properties, atomically: true, encoding: .utf8)
        let pipeline = folder.appendingPathComponent("p.yaml").path
        try "request-topic: r\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        for command in [["run", pipeline], ["outcomes"]] {
            let run = try await ChildProcess(try Programs.iidbatch, command + ["-F", properties])
            // A malformed properties file is configuration (78), as a bad pipeline file is.
            let status = try await run.waitForExit()
            #expect(status == 78, "\(command[0]): \(run.text)")
            #expect(run.text.contains("\(properties) line 3: expected key=value"), "\(command[0]): \(run.text)")
            #expect(!run.text.contains("hunter2"), "\(command[0]): \(run.text)")
        }
    }
}
