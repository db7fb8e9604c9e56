import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// The incident loop: a fault exhausts retries into the dead-letter topic, the fault clears,
/// `iidbatch replay` puts the work back, `iidbatch reconcile` shows it complete. A real worker,
/// the embedded cluster and the emulator over sockets; the commands are the built binary.
@Suite("iidbatch replay and outcomes, as an operator runs them", .serialized)
struct ReplayCommandTests {
    /// The per-op lines of a reconcile report: counts by status and code.
    private func countLines(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains("; items: ") }
    }

    /// The count of `code` in `op`'s line of a reconcile report (`items: OK=77 INTERNAL=73`), 0 when
    /// the line does not list it.
    private func count(of code: String, op: RequestOp, in output: String) -> Int {
        guard let line = countLines(output).first(where: { $0.contains(op.rawValue + " ") }) else { return 0 }
        let word = line.split(separator: " ").first { $0.hasPrefix(code + "=") }
        return word.flatMap { Int($0.dropFirst(code.count + 1)) } ?? 0
    }

    @Test("dead letters by code and op, replayed after the fault clears: everything completes; a second replay changes nothing")
    func replayAfterFault() async throws {
        // Every subscribe throttled: paced, never charged, and dead-lettered once `max-elapsed` is
        // spent (a backend answering every item INTERNAL or UNAVAILABLE is an outage, which pauses
        // instead; `PipelineFaultTests`).
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(itemErrors: ["RESOURCE_EXHAUSTED": 1.0])) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            let folder = try OperatorCommand.temporaryFolder("replay")
            defer { try? FileManager.default.removeItem(at: folder) }
            let tokens = fixture.seedTokens(2_500, prefix: "movie-fan")
            let apns = (0..<150).map { NumberText.digits(0xa000 + $0, radix: 16, width: 64) }
            try (tokens.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("tokens.txt"), atomically: true, encoding: .utf8)
            try (apns.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("apns.txt"), atomically: true, encoding: .utf8)
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.retry = RetryPolicy(maxAttempts: 1, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), maxElapsed: .seconds(4))
                })
            func run(_ arguments: [String]) async throws -> String {
                let result = try await OperatorCommand.run(arguments, brokers: brokers)
                #expect(result.status == 0, "iidbatch \(arguments.joined(separator: " ")):\n\(result.output)")
                return result.output
            }
            func reconcile() async throws -> String {
                try await run(["reconcile", "--requests", fixture.requestTopic, "--outcomes", fixture.outcomeTopic, "--wait", "3m"])
            }

            // Every subscribe throttled past `max-elapsed`, then about half of each import's
            // tokens failing INTERNAL on their one attempt (`max-attempts: 1`).
            _ = try await run([
                "submit", "--op", "topics.subscribe", "--topic", "movies", "--request-topic", fixture.requestTopic,
                folder.appendingPathComponent("tokens.txt").path,
            ])
            _ = try await fixture.waitForDeadLetters(3, timeout: .seconds(120))
            try fixture.backend.setFaults(FaultPlan(itemErrors: ["INTERNAL": 0.5]))
            _ = try await run([
                "submit", "--op", "apns.import", "--application", "com.example.ios", "--request-topic", fixture.requestTopic,
                folder.appendingPathComponent("apns.txt").path,
            ])
            _ = try await fixture.waitForDeadLetters(5, timeout: .seconds(120))
            let failed = try await reconcile()
            #expect(failed.contains("topics.subscribe     failed 3; items: RESOURCE_EXHAUSTED=2500"), "\(failed)")
            #expect(failed.contains("apns.import          partial 2; items: "), "\(failed)")
            let failedImports = count(of: "INTERNAL", op: .apnsImport, in: failed)
            #expect(failedImports > 0 && failedImports + count(of: "OK", op: .apnsImport, in: failed) == 150, "\(failed)")
            let importLine = countLines(failed).first { $0.contains("apns.import") }
            #expect(fixture.backend.subscribers(of: "movies").isEmpty)
            try fixture.backend.setFaults(FaultPlan())

            // A dry run shows the selection and produces nothing.
            let requestsBefore = try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count
            let dryRun = try await run(["replay", "--from", fixture.deadLetterTopic, "--code", "RESOURCE_EXHAUSTED", "--dry-run"])
            #expect(dryRun.contains("dry run: would replay 3 record(s), 2500 items, of 5 in \(fixture.deadLetterTopic)"), "\(dryRun)")
            #expect(dryRun.split(separator: "\n").filter { $0.contains("RESOURCE_EXHAUSTED → \(fixture.requestTopic)") }.count == 3, "\(dryRun)")
            #expect(try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count == requestsBefore)

            // Replay by code: only the throttled subscribes go back.
            let byCode = try await run(["replay", "--from", fixture.deadLetterTopic, "--code", "RESOURCE_EXHAUSTED"])
            #expect(byCode.contains("replayed 3 record(s), 2500 items"), "\(byCode)")
            let half = try await reconcile()
            #expect(half.contains("topics.subscribe     succeeded 3; items: OK=2500"), "\(half)")
            #expect(countLines(half).first { $0.contains("apns.import") } == importLine, "\(half)")
            #expect(fixture.backend.subscribers(of: "movies") == tokens.sorted())

            // Replay by op: the imports.
            let byOp = try await run(["replay", "--from", fixture.deadLetterTopic, "--op", "apns.import"])
            #expect(byOp.contains("replayed 2 record(s), \(failedImports) items"), "\(byOp)")
            let complete = try await reconcile()
            #expect(complete.contains("topics.subscribe     succeeded 3; items: OK=2500"), "\(complete)")
            #expect(complete.contains("apns.import          succeeded 2; items: OK=150"), "\(complete)")
            #expect(complete.contains("answered 5 of 5; missing 0; duplicates 0; replayed 5"), "\(complete)")

            // Everything once more: the backend ends as it was, and so do the audit's counts.
            let again = try await run(["replay", "--from", fixture.deadLetterTopic])
            #expect(again.contains("replayed 5 record(s), \(2_500 + failedImports) items"), "\(again)")
            let afterAgain = try await reconcile()
            #expect(countLines(afterAgain) == countLines(complete), "\(afterAgain)")
            #expect(afterAgain.contains("answered 5 of 5; missing 0; duplicates 0; replayed 5 (10 replay outcome(s) for 10 replay record(s))"), "\(afterAgain)")
            #expect(fixture.backend.subscribers(of: "movies") == tokens.sorted())
            // Re-importing an APNs token gives the registration token it got the first time.
            let imports = try await OperatorCommand.records(fixture.kafka, fixture.outcomeTopic)
                .compactMap { try? Outcome.decoder().decode(Outcome.self, from: Data($0.value ?? [])) }
                .filter { $0.op == .apnsImport }.compactMap(\.imports)
            #expect(imports.count == 6, "2 partial, 2 replays and 2 replays again")
            var registrations: [String: Set<String>] = [:]
            for mapping in imports { for (apnsToken, registration) in mapping { registrations[apnsToken, default: []].insert(registration) } }
            #expect(registrations.count == 150 && registrations.values.allSatisfy { $0.count == 1 })

            // outcomes: one request and its replays; the JSON lines are the wire form.
            let id = try #require(fixture.outcomes.first { $0.op == .topicsSubscribe && $0.counts.values.reduce(0, +) == 1_000 }?.requestID)
            let table = try await run(["outcomes", "--from", fixture.outcomeTopic, "--request-id", id])
            #expect(table.contains("\(id) (replay)"), "\(table)")
            #expect(table.contains("3 outcome(s): succeeded 2, failed 1; items: OK=2000 RESOURCE_EXHAUSTED=1000"), "\(table)")
            let json = try await run(["outcomes", "--from", fixture.outcomeTopic, "--json", "--since", "1h"])
            let lines = json.split(separator: "\n").filter { $0.hasPrefix("{") }
            #expect(lines.count == (try await OperatorCommand.records(fixture.kafka, fixture.outcomeTopic).count))
            #expect(lines.allSatisfy { (try? Outcome.decoder().decode(Outcome.self, from: Data($0.utf8))) != nil })
            await worker.stop()
        }
    }

    @Test("replaying everything after a replay that failed again sends each request once: its two dead letters go as one record")
    func replayOfAReplayThatFailedAgain() async throws {
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(itemErrors: ["RESOURCE_EXHAUSTED": 1.0])) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            let tokens = fixture.seedTokens(10, prefix: "again")
            let request = PipelineRequest(id: "again-1", op: .topicsSubscribe, target: .topic("again"), items: tokens)
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.linger = .milliseconds(5)
                    $0.retry = RetryPolicy(maxAttempts: 1, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), maxElapsed: .seconds(3))
                })
            func run(_ arguments: [String]) async throws -> String {
                let result = try await OperatorCommand.run(arguments, brokers: brokers)
                #expect(result.status == 0, "iidbatch \(arguments.joined(separator: " ")):\n\(result.output)")
                return result.output
            }
            try await fixture.submit([request])
            _ = try await fixture.waitForDeadLetters(1)
            // The fault holds: the replay fails again, a second dead letter of the same request.
            _ = try await run(["replay", "--from", fixture.deadLetterTopic])
            _ = try await fixture.waitForDeadLetters(2)
            try fixture.backend.setFaults(FaultPlan(latencyMilliseconds: 300))

            let before = try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count
            let output = try await run(["replay", "--from", fixture.deadLetterTopic])
            #expect(output.contains("replayed 1 record(s), 10 items"), "\(output)")
            #expect(output.contains("1 folded into another letter of their request"), "\(output)")
            #expect(try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count == before + 1, "one record of the request, not two")
            try await fixture.waitForRead({ _ in "the replay's success" }) { read in
                read.outcomes.contains { $0.requestID == request.id && $0.status == .succeeded }
            }
            await worker.stop()
            #expect(fixture.deadLetters.count == 2, "no record of the request was rejected as a duplicate in flight")
            #expect(fixture.backend.subscribers(of: "again") == tokens.sorted())
        }
    }

    @Test(
        "a dead letter of a cancelled batch is listed and not replayed (its replay would be a batch the cancel does not name); --include-cancelled replays it")
    func cancelledBatchLetters() async throws {
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(itemErrors: ["RESOURCE_EXHAUSTED": 1.0])) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            let tokens = fixture.seedTokens(3, prefix: "cancelled")
            let request = PipelineRequest(id: "cancelled-1", op: .topicsSubscribe, target: .topic("cancelled"), items: tokens, batch: "wrong-list")
            let pipeline = fixture.pipeline {
                $0.linger = .milliseconds(5)
                $0.retry = RetryPolicy(maxAttempts: 1, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), maxElapsed: .seconds(2))
            }
            let worker = try fixture.startWorker(pipeline)
            try await fixture.submit([request])
            let letters = try await fixture.waitForDeadLetters(1)
            await worker.stop()
            #expect(letters.first.map { DeadLetter($0).request?.batch } == "wrong-list", "the dead letter keeps its batch")
            let cancel = ControlCancel(
                pipeline: pipeline.name, batch: "wrong-list", requestID: nil, producedBefore: nil, version: 1, updatedAt: Date(), updatedBy: "test",
                reason: "wrong list", tag: "t1")
            _ = try await fixture.produce([(key: cancel.recordKey, value: cancel.jsonBytes())], topic: ControlTopic.defaultName)
            let before = try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count
            let left = try await OperatorCommand.run(["replay", "--from", fixture.deadLetterTopic], brokers: brokers)
            #expect(left.status == 0, "\(left.output)")
            #expect(left.output.contains("is not replayed: cancelled in \(pipeline.name) (wrong list)"), "\(left.output)")
            #expect(left.output.contains("nothing to replay") && left.output.contains("1 of cancelled work, not replayed"), "\(left.output)")
            #expect(try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count == before)
            let forced = try await OperatorCommand.run(["replay", "--from", fixture.deadLetterTopic, "--include-cancelled"], brokers: brokers)
            #expect(forced.status == 0 && forced.output.contains("replayed 1 record(s), 3 items"), "\(forced.output)")
            #expect(try await OperatorCommand.records(fixture.kafka, fixture.requestTopic).count == before + 1)
        }
    }
}
