import Foundation
import Kafka
import Pipeline
import Testing

/// The operator tools find their start by time and follow instead of re-reading: `outcomes
/// --since` reads only the records from its time on, `reconcile --wait` ends when the missing
/// outcome arrives. The embedded cluster cannot look up by time, so the reader's own search is
/// what finds the start here.
@Suite("Operator commands that seek and follow", .serialized)
struct SeekCommandTests {
    private func outcome(_ id: String, completedAt: Date) throws -> [UInt8] {
        let outcome = Outcome(
            requestID: id, op: .topicsSubscribe, target: ["topic": "movies"], status: .succeeded, counts: ["OK": 2], failedItems: [],
            backendCalls: 1, receivedAt: completedAt.addingTimeInterval(-1), completedAt: completedAt)
        return Array(try Outcome.encoder().encode(outcome))
    }

    @Test("outcomes --since 5m prints exactly the recent outcomes and reads only them, not the 2 000 older ones")
    func outcomesSince() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("outcomes", partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        let now = Date()
        // Two hours ago, a minute apart; then the last 30 s.
        let old = try (0..<2_000).map { n in
            let time = now.addingTimeInterval(-7_200 + Double(n) / 2_000 * 3_600)
            return KafkaProducerRecord(topic: "outcomes", key: Array("old-\(n)".utf8), value: try outcome("old-\(n)", completedAt: time), timestamp: time)
        }
        let recent = try (0..<30).map { n in
            let time = now.addingTimeInterval(-30 + Double(n))
            return KafkaProducerRecord(topic: "outcomes", key: Array("new-\(n)".utf8), value: try outcome("new-\(n)", completedAt: time), timestamp: time)
        }
        try await producer.sendInOrder(old + recent)
        await producer.close()

        let result = try await OperatorCommand.run(["outcomes", "--from", "outcomes", "--since", "5m"], brokers: kafka.bootstrapServers)
        #expect(result.status == 0, "\(result.output)")
        let ids = Set(result.output.split(separator: " ").map(String.init).filter { $0.hasPrefix("new-") || $0.hasPrefix("old-") })
        #expect(ids == Set((0..<30).map { "new-\($0)" }), "\(result.output)")
        #expect(result.output.contains("30 outcome(s): succeeded 30"), "\(result.output)")
        #expect(result.output.contains("outcomes: read 30 of 2030 record(s) in outcomes"), "only the recent records were read: \(result.output)")

        // Without --since everything is read, as before.
        let all = try await OperatorCommand.run(["outcomes", "--from", "outcomes", "--json"], brokers: kafka.bootstrapServers)
        #expect(all.output.split(separator: "\n").filter { $0.hasPrefix("{") }.count == 2_030)
    }

    @Test("reconcile --wait follows the topics and ends as soon as the missing outcome arrives")
    func reconcileWaitFollows() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("requests", partitions: 2)
        try kafka.createTopic("outcomes", partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        for n in 1...3 {
            let request = PipelineRequest(id: "r-\(n)", op: .topicsSubscribe, target: .topic("movies"), items: ["t\(n)a", "t\(n)b"])
            _ = try await producer.send(topic: "requests", key: Array("movies".utf8), value: Array(request.jsonBody()))
        }
        for id in ["r-1", "r-2"] { _ = try await producer.send(topic: "outcomes", key: Array(id.utf8), value: try outcome(id, completedAt: .now)) }

        let started = ContinuousClock.now
        let audit = try await ChildProcess(
            try Programs.iidbatch, ["reconcile", "--requests", "requests", "--outcomes", "outcomes", "--wait", "3m", "--brokers", kafka.bootstrapServers])
        _ = try await audit.waitFor("following the topics for up to 3m")
        #expect(audit.text.contains("reconcile: 1 request(s) and 0 replay(s) without an outcome"), "\(audit.text)")
        // A request submitted meanwhile whose outcome is written before it: still one missing.
        _ = try await producer.send(topic: "outcomes", key: Array("r-4".utf8), value: try outcome("r-4", completedAt: .now))
        let request = PipelineRequest(id: "r-4", op: .topicsSubscribe, target: .topic("movies"), items: ["t4a", "t4b"])
        _ = try await producer.send(topic: "requests", key: Array("movies".utf8), value: Array(request.jsonBody()))
        _ = try await producer.send(topic: "outcomes", key: Array("r-3".utf8), value: try outcome("r-3", completedAt: .now))
        await producer.close()
        let status = try await audit.waitForExit(seconds: 120)
        #expect(status == 0, "\(audit.text)")
        #expect(audit.text.contains("missing 0; duplicates 0"), "\(audit.text)")
        #expect(audit.text.contains("complete: every request has an outcome"), "\(audit.text)")
        // The outcome of the request seen late is counted with it, never as missing.
        #expect(audit.text.contains("answered 3 of 3") || audit.text.contains("answered 4 of 4"), "\(audit.text)")
        #expect(ContinuousClock.now - started < .seconds(90), "it ended on the outcome, not at the end of --wait")
    }

    /// A dead letter of request `r-n`, stamped `time`, in topic `dlq`.
    private static func letter(_ n: Int, at time: Date) -> KafkaProducerRecord {
        let request = PipelineRequest(id: "r-\(n)", op: .topicsSubscribe, target: .topic("movies"), items: ["t\(n)"], priorAttempts: 3)
        let headers = [
            KafkaHeader(key: DeadLetterHeader.originalTopic, string: "requests"),
            KafkaHeader(key: DeadLetterHeader.error, string: "UNAVAILABLE: 503"),
            KafkaHeader(key: DeadLetterHeader.attempts, string: "3"),
            KafkaHeader(key: DeadLetterHeader.kind, string: DeadLetter.Kind.retryExhausted.rawValue),
            KafkaHeader(key: DeadLetterHeader.codes, string: "UNAVAILABLE"),
        ]
        return KafkaProducerRecord(topic: "dlq", key: Array("movies".utf8), value: Array(request.jsonBody()), headers: headers, timestamp: time)
    }

    /// An embedded cluster whose topic `dlq` (of `partitions`) holds `letters`, in order, beside
    /// the topic `requests` they name.
    private static func deadLetterCluster(partitions: Int, _ letters: [KafkaProducerRecord]) async throws -> EmbeddedKafka {
        let kafka = try EmbeddedKafka(brokers: 1)
        try kafka.createTopic("dlq", partitions: partitions)
        try kafka.createTopic("requests")
        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await producer.sendInOrder(letters)
        await producer.close()
        return kafka
    }

    @Test("replay --until selects a letter stamped before it but stored after letters stamped minutes past it (a producer retrying through an outage)")
    func lateLetter() async throws {
        let now = Date()
        let until = now.addingTimeInterval(-600)
        // In offset order: one in the span, one stamped 2 minutes past --until, then the late one.
        let kafka = try await Self.deadLetterCluster(
            partitions: 1,
            [
                Self.letter(1, at: now.addingTimeInterval(-2_400)), Self.letter(2, at: until.addingTimeInterval(120)),
                Self.letter(3, at: until.addingTimeInterval(-10)),
            ])
        let result = try await OperatorCommand.run(
            ["replay", "--from", "dlq", "--since", "45m", "--until", until.formatted(.iso8601), "--dry-run"], brokers: kafka.bootstrapServers)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("r-3 ") && result.output.contains("dry run: would replay 2 record(s)"), "\(result.output)")
    }

    @Test("replay --since/--until selects the letters of that span and reads only them, give or take one record per partition past --until")
    func replaySpan() async throws {
        let now = Date()
        // 1 000 letters two hours ago, 10 half an hour ago, 10 in the last minute.
        let old = (0..<1_000).map { Self.letter($0, at: now.addingTimeInterval(-7_200 + Double($0))) }
        let middle = (1_000..<1_010).map { Self.letter($0, at: now.addingTimeInterval(-1_800 + Double($0 - 1_000))) }
        let recent = (1_010..<1_020).map { Self.letter($0, at: now.addingTimeInterval(-60 + Double($0 - 1_010))) }
        let kafka = try await Self.deadLetterCluster(partitions: 2, old + middle + recent)

        let result = try await OperatorCommand.run(
            ["replay", "--from", "dlq", "--since", "40m", "--until", "10m", "--dry-run"], brokers: kafka.bootstrapServers)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("dry run: would replay 10 record(s), 10 items"), "\(result.output)")
        #expect((1_000..<1_010).allSatisfy { result.output.contains("r-\($0) ") }, "\(result.output)")
        // The 10 of the span, and per partition at most the first record past --until (plus the margin), which ends it.
        let read = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("replay: read ") }, "\(result.output)")
        let count = try #require(Int(read.dropFirst("replay: read ".count).prefix { $0 != " " }))
        #expect((10...12).contains(count) && read.contains(" of 1020 record(s) in dlq"), "\(read)")
    }
}
