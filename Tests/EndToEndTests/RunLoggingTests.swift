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
            let folder = try RunFolder(fixture, name: "log")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "log-workers")
            // linger.ms is a producer property: the consumer, given the same -X, warns (CONFWARN).
            let worker = try ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["-X", "linger.ms=5", "--log-level", "warning"]))
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
