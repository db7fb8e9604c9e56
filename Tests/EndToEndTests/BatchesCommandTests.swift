import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import TestSupport
import Testing
import WireJSON

/// A job as an operator runs it: `submit --batch`, a worker, `iidbatch batches` (list, watch,
/// receipt). The embedded cluster, the emulator over sockets and the built binary.
@Suite("iidbatch batches: progress and receipts of a submitted job", .serialized)
struct BatchesCommandTests {
    /// The batch listed by `batches --json`.
    private func listed(_ name: String, _ fixture: PipelineFixture) async throws -> [String: Any] {
        let result = try await OperatorCommand.run(["batches", "--json", "--outcomes", fixture.outcomeTopic], brokers: fixture.kafka.bootstrapServers)
        #expect(result.status == 0, "\(result.output)")
        for line in result.output.split(separator: "\n") where line.hasPrefix("{") {
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["name"] as? String == name { return object }
        }
        throw FixtureFailure("batch \(name) not listed: \(result.output)")
    }

    /// Writes `lines` to a file in a fresh folder.
    private func file(_ lines: [String]) throws -> URL {
        let file = try OperatorCommand.temporaryFolder("batches").appendingPathComponent("fids.txt")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("a batch of deletions: the manifest before and after, batch on every record, done with its counts, a receipt that matches the outcome topic")
    func completed() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            let fids = (0..<20).map { "fid-batch-erase-\($0)" }
            fixture.backend.seed(SeedRequest(installations: Array(fids.prefix(12))))
            let input = try file(fids + ["short"])
            defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
            let submit = try await OperatorCommand.run(
                [
                    "submit", "--op", "installations.delete", "--subject", "user-1", "--request-topic", fixture.requestTopic, "--record-size", "4",
                    "--batch", "gdpr-test-1", "--pipeline", "test", "--by", "auditor", input.path,
                ], brokers: brokers)
            #expect(submit.status == 0, "\(submit.output)")
            #expect(submit.output.split(separator: "\n").contains("batch gdpr-test-1"), "\(submit.output)")
            // The name is this job's: a second job of that name is refused before it produces.
            let again = try await OperatorCommand.run(
                [
                    "submit", "--op", "installations.delete", "--subject", "user-2", "--request-topic", fixture.requestTopic, "--batch", "gdpr-test-1",
                    input.path,
                ],
                brokers: brokers)
            #expect(
                again.status == 64 && again.output.contains("--batch: gdpr-test-1 names a batch already in iidbatch.batches (submitted, 6 request(s)"),
                "\(again.output)")

            let manifests = try await OperatorCommand.records(fixture.kafka, BatchTopic.defaultName).map { try BatchManifest.parse($0.value ?? []) }
            #expect(manifests.map(\.state) == [.submitting, .submitted])
            let manifest = try #require(manifests.last)
            #expect(manifest.requests == 6 && manifest.items == 21 && manifest.pipeline == "test" && manifest.createdBy == "auditor")
            #expect(manifest.inputSHA256 == BatchManifest.inputDigest(try Data(contentsOf: input)))
            let requests = try await OperatorCommand.requests(fixture.kafka, fixture.requestTopic)
            #expect(requests.count == 6 && requests.allSatisfy { $0.request.batch == "gdpr-test-1" })

            let worker = try fixture.startWorker(fixture.pipeline())
            _ = try await fixture.waitForOutcomes(requests.map(\.request.id))
            await worker.stop()

            // A topic the watch cannot read exits as for any command: 78, not "cancelled" (1).
            let missing = try await OperatorCommand.run(["batches", "watch", "gdpr-test-1", "--outcomes", "no-such-outcomes"], brokers: brokers)
            #expect(missing.status == 78 && missing.output.contains("no-such-outcomes"), "\(missing.output)")

            let listed = try await listed("gdpr-test-1", fixture)
            #expect(listed["state"] as? String == "done", "\(listed)")
            #expect(listed["requestsDone"] as? Int == 6 && listed["requests"] as? Int == 6, "\(listed)")
            #expect(listed["itemsDone"] as? Int == 21 && listed["items"] as? Int == 21, "\(listed)")
            #expect(listed["secondsLeft"] as? Int == 0, "\(listed)")

            // The receipt against the outcome topic, item for item.
            let records = try await OperatorCommand.records(fixture.kafka, fixture.outcomeTopic).sorted {
                ($0.partition, $0.offset) < ($1.partition, $1.offset)
            }
            let outcomes = try records.map { try Outcome.decoder().decode(Outcome.self, from: Data($0.value ?? [])) }
            let expected = outcomes.flatMap { outcome in (outcome.receipt ?? []).map { (outcome.requestID, $0) } }.sorted {
                ($0.0, $0.1.item) < ($1.0, $1.1.item)
            }
            #expect(expected.count == 21)
            let folder = input.deletingLastPathComponent()
            let jsonFile = folder.appendingPathComponent("receipt.json").path
            let json = try await OperatorCommand.run(
                ["batches", "receipt", "gdpr-test-1", "--outcomes", fixture.outcomeTopic, "--output", jsonFile], brokers: brokers)
            #expect(json.status == 0, "\(json.output)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonFile))) as? [String: Any])
            let documented = try #require(document["requests"] as? [[String: Any]]).flatMap { request in
                ((request["items"] as? [[String: Any]]) ?? []).map { item in
                    (request["id"] as? String ?? "", item["item"] as? String ?? "", item["code"] as? String ?? "", item["at"] as? String ?? "")
                }
            }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            #expect(documented.count == expected.count)
            for (line, want) in zip(documented, expected) {
                #expect(line.0 == want.0 && line.1 == want.1.item && line.2 == want.1.code.rawValue && line.3 == WireDate.text(want.1.at), "\(line)")
            }
            #expect(expected.filter { $0.1.code == .ok }.count == 12 && expected.filter { $0.1.code == .alreadyAbsent }.count == 8)
            let hashed = records.filter { $0.value != nil }.flatMap { BatchReceipt.hashedBytes(of: $0) }
            #expect(document["outcomesSha256"] as? String == BatchManifest.inputDigest(hashed))
            #expect(json.output.contains(BatchManifest.inputDigest(hashed)), "\(json.output)")

            let csv = try await OperatorCommand.run(
                ["batches", "receipt", "gdpr-test-1", "--outcomes", fixture.outcomeTopic, "--format", "csv"], brokers: brokers)
            #expect(csv.status == 0, "\(csv.output)")
            let lines: [String] = csv.output.components(separatedBy: "\r\n").filter { $0.hasPrefix("gdpr-test-1,") }
            let fields: [[String]] = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            let rows: [(String, String, String, String)] = fields.map { ($0[1], $0[4], $0[5], $0[6]) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            #expect(csv.output.contains("batch,request_id,request_status,index,item,code,at\r\n"), "\(csv.output)")
            #expect(rows.count == expected.count)
            for (row, want) in zip(rows, expected) {
                #expect(row.0 == want.0 && row.1 == want.1.item && row.2 == want.1.code.rawValue && row.3 == WireDate.text(want.1.at), "\(row)")
            }
        }
    }

    @Test("a submit that failed halfway, its manifest left submitting, runs again under its name; once submitted, the name is refused")
    func rerunHalfway() async throws {
        try await withPipelineFixture { fixture in
            let fids = (0..<6).map { "fid-halfway-\($0)" }
            let input = try file(fids)
            defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
            let prefix = SubmitPlan(op: .installationsDelete, target: .subject("user-1"), recordSize: 4, items: fids).idPrefix
            let halfway = BatchManifest(
                name: "halfway-1", op: .installationsDelete, pipeline: "test", requestTopics: [fixture.requestTopic], requests: 2, items: 6,
                createdBy: "auditor", createdAt: Date(), inputSHA256: BatchManifest.inputDigest(try Data(contentsOf: input)), state: .submitting,
                idPrefix: prefix)
            _ = try await fixture.produce([(key: "halfway-1", value: BatchTopic().record(halfway).value ?? [])], topic: BatchTopic.defaultName)
            let arguments = [
                "submit", "--op", "installations.delete", "--subject", "user-1", "--request-topic", fixture.requestTopic, "--record-size", "4",
                "--batch", "halfway-1", input.path,
            ]
            // Other work under its name (another subject: another id prefix) does not take it over.
            var other = arguments
            other[other.firstIndex(of: "user-1")!] = "user-2"
            let refused = try await OperatorCommand.run(other, brokers: fixture.kafka.bootstrapServers)
            #expect(refused.status == 64, "\(refused.output)")
            let rerun = try await OperatorCommand.run(arguments, brokers: fixture.kafka.bootstrapServers)
            #expect(rerun.status == 0 && rerun.output.contains("batch halfway-1\n"), "\(rerun.output)")
            let again = try await OperatorCommand.run(arguments, brokers: fixture.kafka.bootstrapServers)
            #expect(again.status == 64 && again.output.contains("names a batch already"), "\(again.output)")
        }
    }

    @Test("during a slow run: items done below the total, with an ETA; watch follows it to done")
    func duringRun() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(latencyMilliseconds: 250)) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            let fids = (0..<40).map { "fid-batch-slow-\($0)" }
            fixture.backend.seed(SeedRequest(installations: fids))
            let input = try file(fids)
            defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
            let submit = try await OperatorCommand.run(
                [
                    "submit", "--op", "installations.delete", "--subject", "user-2", "--request-topic", fixture.requestTopic, "--record-size", "1",
                    "--batch", "slow-1", "--pipeline", "test", input.path,
                ], brokers: brokers)
            #expect(submit.status == 0, "\(submit.output)")
            // One call at a time, 250 ms each: 40 deletions take 10 s or more.
            let worker = try fixture.startWorker(fixture.pipeline { $0.concurrency = 1 })
            try await fixture.waitForRead({ "a first outcome (\($0.outcomes.count))" }) { $0.outcomes.count >= 2 }
            let listed = try await listed("slow-1", fixture)
            #expect(listed["state"] as? String == "running", "\(listed)")
            let done = try #require(listed["itemsDone"] as? Int)
            #expect(done >= 2 && done < 40, "\(listed)")
            #expect((listed["secondsLeft"] as? Int).map { $0 > 0 } == true, "\(listed)")
            #expect((listed["itemsPerSecond"] as? Double).map { $0 > 0 } == true, "\(listed)")

            let watch = try await OperatorCommand.run(["batches", "watch", "slow-1", "--outcomes", fixture.outcomeTopic], brokers: brokers)
            #expect(watch.status == 0, "\(watch.output)")
            #expect(watch.output.contains("slow-1 done: 40/40 items, 40/40 requests"), "\(watch.output)")
            try await fixture.waitForRead({ "40 outcomes (\($0.outcomes.count))" }) { $0.outcomes.count >= 40 }
            await worker.stop()
        }
    }
}
