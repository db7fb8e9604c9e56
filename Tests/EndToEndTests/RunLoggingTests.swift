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
            // socket.blocking.max.ms is deprecated: every client given it warns (CONFWARN).
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                folder.runArguments(fixture, pipeline: pipeline, ["-X", "socket.blocking.max.ms=1000", "--log-level", "warning"]))
            let output = try await worker.waitFor("CONFWARN")
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            let lines = output.split(separator: "\n")
            let warning = try #require(lines.first { $0.contains("CONFWARN") })
            #expect(warning.contains(" warning iidbatch.kafka: "), "in swift-log's format: \(warning)")
            #expect(warning.contains("socket.blocking.max.ms is deprecated"), "\(warning)")
            #expect(!worker.text.split(separator: "\n").contains { $0.hasPrefix("%") }, "a raw librdkafka line escaped:\n\(worker.text)")
        }
    }

    @Test("--log-format json: every line of a run is one Cloud Logging JSON object, librdkafka's included (issues 14, 32)")
    func jsonLines() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "json")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "json-workers")
            let tokens = fixture.seedTokens(3, prefix: "json")
            try await fixture.submit([PipelineRequest(id: "json-1", op: .topicsSubscribe, target: .topic("j"), items: tokens)])
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                folder.runArguments(fixture, pipeline: pipeline, ["-X", "socket.blocking.max.ms=1000", "--log-level", "info", "--log-format", "json"]))
            _ = try await fixture.waitForOutcomes(["json-1"])
            _ = try await worker.waitFor("CONFWARN")
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            let lines = worker.text.split(separator: "\n").filter { !$0.isEmpty }
            var objects: [[String: Any]] = []
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "not one JSON object: \(line)")
                if let object { objects.append(object) }
            }
            let labels = { (object: [String: Any]) in object["logging.googleapis.com/labels"] as? [String: String] ?? [:] }
            #expect(objects.allSatisfy { $0["time"] is String && $0["severity"] is String && $0["message"] is String && labels($0)["logger"] != nil })
            #expect(objects.allSatisfy { $0["level"] == nil && $0["timestamp"] == nil }, "Cloud Logging's names only")
            let confwarn = try #require(objects.first { ($0["message"] as? String)?.contains("CONFWARN") == true })
            #expect(confwarn["severity"] as? String == "WARNING" && labels(confwarn)["logger"] == "iidbatch.kafka", "\(confwarn)")
            #expect(objects.contains { labels($0)["pipeline"] == "json-workers" }, "worker lines name their pipeline in the labels")
            let stopped = try #require(
                objects.first { ($0["message"] as? String)?.hasPrefix("iidbatch run: stopped after") == true }, "the run's own lines too")
            #expect(stopped["severity"] as? String == "NOTICE", "the run's own lines are notices: \(stopped)")
            #expect(objects.contains { $0["severity"] as? String == "INFO" }, "info lines are INFO")
            #expect(!objects.contains { ["info", "warning", "notice", "error"].contains($0["severity"] as? String) }, "no swift-log level names")
        }
    }

    @Test(
        "run warns once at start, per pipeline, of the APIs it calls that Google turns down, and of device groups without sender-id; the FCM v1 pipeline gets no warning"
    )
    func turndownWarning() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "turndown")
            defer { folder.remove() }
            _ = try folder.pipeline(fixture, group: "legacy-topics", "ops: [topics.subscribe]\nbackend: iid-batch")
            let current = folder.url.appendingPathComponent("current.yaml").path
            try """
            request-topic: other-requests
            group: current-topics
            outcome-topic: \(fixture.outcomeTopic)
            dead-letter-topic: \(fixture.deadLetterTopic)
            ops: [topics.subscribe, instances.info]
            backend: fcm-v1
            """.write(toFile: current, atomically: true, encoding: .utf8)
            // Device groups without sender-id: told that FCM documents the project number there.
            try """
            request-topic: group-requests
            group: current-groups
            outcome-topic: \(fixture.outcomeTopic)
            dead-letter-topic: \(fixture.deadLetterTopic)
            ops: [groups.add]
            """.write(toFile: folder.url.appendingPathComponent("groups.yaml").path, atomically: true, encoding: .utf8)
            let worker = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: folder.url.path, ["--log-level", "warning"]))
            _ = try await worker.waitFor("set sender-id: in its file")
            _ = try await worker.waitFor("which Google turns down on 2027-09-29")
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            let warnings = worker.text.split(separator: "\n").filter { $0.contains("turns down on 2027-09-29") }
            #expect(warnings.count == 2, "\(warnings)")
            #expect(warnings.contains { $0.contains("legacy-topics calls iid.batchAdd") }, "\(warnings)")
            #expect(warnings.contains { $0.contains("groups calls fcm.notification") }, "\(warnings)")
            let senders = worker.text.split(separator: "\n").filter { $0.contains("set sender-id:") }
            #expect(senders.count == 1 && senders[0].contains("groups calls the device-group API with project_id"), "\(senders)")
        }
    }
}
