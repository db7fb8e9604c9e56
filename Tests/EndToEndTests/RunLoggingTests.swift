import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// `iidbatch run`'s log lines: librdkafka's own go through swift-log, in the run's format.
@Suite("iidbatch run: Kafka log lines through swift-log", .serialized)
struct RunLoggingTests {
    @Test("a librdkafka warning appears in the run's log format, and no raw %N| line escapes it")
    func kafkaWarningThroughSwiftLog() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-log-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keyPath = directory.appendingPathComponent("key.json").path
            try fixture.keyJSON.write(to: URL(fileURLWithPath: keyPath))
            let pipeline = directory.appendingPathComponent("log.yaml")
            try "request-topic: \(fixture.requestTopic)\noutcome-topic: \(fixture.outcomeTopic)\ndead-letter-topic: \(fixture.deadLetterTopic)\n"
                .write(to: pipeline, atomically: true, encoding: .utf8)
            // linger.ms is a producer property: the consumer, given the same -X, warns (CONFWARN).
            let worker = try ChildProcess(
                try Programs.iidbatch,
                [
                    "run", pipeline.path, "--brokers", fixture.kafka.bootstrapServers, "--credentials", keyPath,
                    "--backend-url", fixture.emulator.baseURL, "-X", "linger.ms=5", "--log-level", "warning",
                ])
            let output = try await worker.waitFor("CONFWARN", seconds: 60)
            worker.interrupt()
            #expect(try await worker.waitForExit(seconds: 60) == 0)
            let lines = output.split(separator: "\n")
            let warning = try #require(lines.first { $0.contains("CONFWARN") })
            #expect(warning.contains(" warning iidbatch.kafka: "), "in swift-log's format: \(warning)")
            #expect(warning.contains("queue.buffering.max.ms"), "librdkafka names linger.ms by its canonical name")
            #expect(!worker.text.split(separator: "\n").contains { $0.hasPrefix("%") }, "a raw librdkafka line escaped:\n\(worker.text)")
        }
    }
}
