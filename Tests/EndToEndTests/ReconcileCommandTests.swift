import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// `iidbatch reconcile`, the audit: it must catch what is missing and what is repeated.
@Suite("iidbatch reconcile, as an auditor runs it", .serialized)
struct ReconcileCommandTests {
    private func outcome(_ id: String, _ status: OutcomeStatus, _ counts: [String: Int], failed: [FailedItem] = []) throws -> [UInt8] {
        let outcome = Outcome(
            requestID: id, op: .topicsSubscribe, target: ["topic": "movies"], status: status, counts: counts, failedItems: failed,
            backendCalls: 1, receivedAt: .now, completedAt: .now)
        return Array(try Outcome.encoder().encode(outcome))
    }

    @Test("a deliberately missing outcome and a duplicate are named; exit 1 until the missing one arrives")
    func missingAndDuplicate() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("requests", partitions: 3)
        try kafka.createTopic("outcomes", partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        for n in 1...5 {
            let request = PipelineRequest(id: "r-\(n)", op: .topicsSubscribe, target: .topic("movies"), items: ["t\(n)a", "t\(n)b"])
            _ = try await producer.send(topic: "requests", key: Array("movies".utf8), value: Array(request.jsonBody()))
        }
        // A record that is no request at all is expected under its position, as the worker names it.
        let garbage = try await producer.send(topic: "requests", key: nil, value: Array("{not json".utf8))
        let garbageID = "requests/\(garbage.partition)/\(garbage.offset)"
        for id in ["r-1", "r-2", "r-2", "r-4", "r-5"] {
            _ = try await producer.send(topic: "outcomes", key: Array(id.utf8), value: try outcome(id, .succeeded, ["OK": 2]))
        }
        let rejected = Outcome(
            requestID: garbageID, op: nil, target: [:], status: .rejected, counts: [:], failedItems: [], reason: "malformed JSON",
            backendCalls: 0, receivedAt: .now, completedAt: .now)
        _ = try await producer.send(topic: "outcomes", key: Array(garbageID.utf8), value: Array(try Outcome.encoder().encode(rejected)))

        let arguments = ["reconcile", "--requests", "requests", "--outcomes", "outcomes"]
        let audit = try await OperatorCommand.run(arguments, brokers: kafka.bootstrapServers)
        #expect(audit.status == 1, "\(audit.output)")
        #expect(audit.output.contains("  missing: r-3\n"), "\(audit.output)")
        #expect(audit.output.contains("  duplicate: r-2 has 2 outcomes"), "\(audit.output)")
        #expect(audit.output.contains("answered 5 of 6; missing 1; duplicates 1"), "\(audit.output)")
        #expect(audit.output.contains("topics.subscribe     succeeded 4; items: OK=8"), "\(audit.output)")
        #expect(audit.output.contains("rejected 1"), "\(audit.output)")
        #expect(audit.output.contains("INCOMPLETE: 1 request(s)"), "\(audit.output)")
        #expect(!audit.output.contains("missing: \(garbageID)"))

        _ = try await producer.send(
            topic: "outcomes", key: Array("r-3".utf8),
            value: try outcome(
                "r-3", .partial, ["OK": 1, "NOT_FOUND": 1], failed: [FailedItem(index: 1, item: "t3b", code: .notFound, attempts: 1, message: nil)]))
        await producer.close()
        let complete = try await OperatorCommand.run(arguments, brokers: kafka.bootstrapServers)
        #expect(complete.status == 0, "\(complete.output)")
        #expect(complete.output.contains("answered 6 of 6; missing 0; duplicates 1"), "the duplicate is still reported: \(complete.output)")
        #expect(complete.output.contains("succeeded 4, partial 1; items: OK=9 NOT_FOUND=1"), "\(complete.output)")
        #expect(complete.output.contains("complete: every request has an outcome"))
    }

    @Test(
        "a request topic's records are read with its pipeline's limits: one the worker rejected for its size is expected under its position, as the worker answered it"
    )
    func pipelineLimits() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("small-requests")
        try kafka.createTopic("outcomes")
        let folder = try OperatorCommand.temporaryFolder("reconcile-limits")
        defer { try? FileManager.default.removeItem(at: folder) }
        try "request-topic: small-requests\ngroup: g\noutcome-topic: outcomes\ndead-letter-topic: dl\nmax-record-bytes: 64\n"
            .write(to: folder.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        // Over the pipeline's 64 bytes: its worker rejects it unread, keyed by the record's position.
        let request = PipelineRequest(id: "too-large", op: .topicsSubscribe, target: .topic("movies"), items: ["token-a", "token-b", "token-c"])
        let sent = try await producer.send(topic: "small-requests", key: nil, value: Array(request.jsonBody()))
        let position = "small-requests/\(sent.partition)/\(sent.offset)"
        let rejected = Outcome(
            requestID: position, op: nil, target: [:], status: .rejected, counts: [:], failedItems: [], reason: "record exceeds the limit",
            backendCalls: 0, receivedAt: .now, completedAt: .now)
        _ = try await producer.send(topic: "outcomes", key: Array(position.utf8), value: Array(try Outcome.encoder().encode(rejected)))
        await producer.close()
        let audit = try await OperatorCommand.run(["reconcile", "--pipelines", folder.path], brokers: kafka.bootstrapServers)
        #expect(audit.status == 0 && audit.output.contains("answered 1 of 1; missing 0"), "\(audit.output)")
    }

    @Test("a topic the cluster does not have is named; no request topic is refused")
    func badArguments() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("outcomes")
        let missing = try await OperatorCommand.run(["reconcile", "--requests", "no-such-requests", "--outcomes", "outcomes"], brokers: kafka.bootstrapServers)
        #expect(missing.status != 0 && missing.output.contains("no-such-requests"), "\(missing.output)")
        // Without --requests the request topics come from the pipeline files; with none to read, --requests is asked for.
        let none = try await OperatorCommand.run(
            ["reconcile", "--outcomes", "outcomes", "--pipelines", "/nonexistent/pipelines"], brokers: kafka.bootstrapServers)
        #expect(none.status != 0 && none.output.contains("--requests"), "\(none.output)")
    }
}
