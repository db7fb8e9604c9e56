import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// `iidbatch control cancel` against `iidbatch run` processes, the embedded broker and the
/// emulator over real sockets: a cancelled batch of deletions erases nothing, the other batch
/// completes, and a cancel holds across a worker killed with SIGKILL.
@Suite("iidbatch control cancel: a wrong batch of deletions is cancelled before it erases", .serialized)
struct CancelCommandTests {
    private func control(_ fixture: PipelineFixture, _ pipeline: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await OperatorCommand.run(["control"] + arguments + ["--pipelines", pipeline], brokers: fixture.kafka.bootstrapServers)
    }

    /// `count` deletion requests of batch `batch`, two installations each, seeded in the emulator.
    private func deletions(_ fixture: PipelineFixture, batch: String, count: Int) -> [PipelineRequest] {
        (0..<count).map { n in
            let installations = ["fid-\(batch)-\(n)-a", "fid-\(batch)-\(n)-b"]
            fixture.backend.seed(SeedRequest(installations: installations))
            return PipelineRequest(id: "\(batch)-\(n)", op: .installationsDelete, target: .subject("subject-\(n)"), items: installations, batch: batch)
        }
    }

    @Test(
        "two batches submitted while paused, one cancelled, then resumed: the cancelled batch ends cancelled with zero delete calls, the other completes; also across a SIGKILL",
        arguments: [false, true])
    func cancelWhilePaused(killBetween: Bool) async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let folder = try RunFolder(fixture, name: "cancel-paused")
            defer { folder.remove() }
            let group = "cancel-\(killBetween ? "kill" : "plain")"
            let pipeline = try folder.pipeline(fixture, group: group, "ops: [installations.delete]\nconcurrency: 4")
            let pause = try await control(fixture, pipeline, ["pause", group, "--reason", "check the lists first", "--by", "tester"])
            #expect(pause.status == 0, "\(pause.output)")
            let wrong = deletions(fixture, batch: "wrong-list", count: 12)
            let right = deletions(fixture, batch: "right-list", count: 12)
            try await fixture.submit(wrong + right)

            let arguments = folder.runArguments(fixture, pipeline: pipeline, RunFolder.groupOptions + ["--log-level", "info"])
            var worker = try await ChildProcess(try Programs.iidbatch, arguments)
            defer { worker.interrupt() }
            try await worker.waitFor("assigned \(fixture.requestTopic)[")
            let cancel = try await control(fixture, pipeline, ["cancel", group, "--batch", "wrong-list", "--reason", "wrong subject list", "--by", "dpo"])
            #expect(cancel.status == 0, "\(cancel.output)")
            #expect(cancel.output.contains("cancel v1 of \(group) by dpo") && cancel.output.contains("batch wrong-list"), "\(cancel.output)")
            if killBetween {
                worker.kill()
                _ = try await worker.waitForExit()
                worker = try await ChildProcess(try Programs.iidbatch, arguments)
                try await worker.waitFor("assigned \(fixture.requestTopic)[", seconds: 120)
            } else {
                try await worker.waitFor("cancel v1 of \(group) by dpo")
            }
            #expect(fixture.backend.stats["installations.delete"].calls == 0, "nothing called while paused")
            let resume = try await control(fixture, pipeline, ["resume", group, "--reason", "lists checked", "--by", "tester"])
            #expect(resume.status == 0, "\(resume.output)")

            let outcomes = try await fixture.waitForOutcomes((wrong + right).map(\.id))
            for request in wrong {
                let outcome = try #require(outcomes[request.id])
                #expect(outcome.status == .cancelled && outcome.batch == "wrong-list" && outcome.backendCalls == 0, "\(outcome)")
                #expect(outcome.counts == [Outcome.cancelledItems: 2] && outcome.reason?.contains("wrong subject list") == true)
                for installation in request.items { #expect(fixture.backend.isLive(installation: installation), "\(installation) was erased") }
            }
            for request in right {
                let outcome = try #require(outcomes[request.id])
                #expect(outcome.status == .succeeded && outcome.counts == ["OK": 2] && outcome.batch == "right-list", "\(outcome)")
                for installation in request.items { #expect(!fixture.backend.isLive(installation: installation)) }
            }
            #expect(fixture.backend.stats["installations.delete"].calls == 2 * right.count, "only the right batch's installations were called")
            #expect(fixture.deadLetters.isEmpty, "a cancel is not dead-lettered")

            let reconcile = try await OperatorCommand.run(
                ["reconcile", "--pipelines", pipeline], brokers: fixture.kafka.bootstrapServers, stdin: nil, seconds: 120)
            #expect(reconcile.status == 0, "\(reconcile.output)")
            #expect(reconcile.output.contains("cancelled 12") && reconcile.output.contains("succeeded 12"), "\(reconcile.output)")
        }
    }

    @Test("a cancel while calls run: running calls finish and are reported as answered, the rest are cancelled, and work produced after the bound is untouched")
    func cancelWhileRunning() async throws {
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(latencyMilliseconds: 400)) { fixture in
            let folder = try RunFolder(fixture, name: "cancel-running")
            defer { folder.remove() }
            let group = "cancel-running"
            let pipeline = try folder.pipeline(fixture, group: group, "ops: [installations.delete]\nconcurrency: 2")
            let batch = deletions(fixture, batch: "migration-7", count: 40)
            try await fixture.submit(batch, key: { _ in "one-key" })
            let worker = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["--log-level", "info"]))
            defer { worker.interrupt() }
            try await waitUntil("the first calls arrive", timeout: .seconds(120)) { fixture.backend.stats["installations.delete"].calls >= 2 }
            // Bounded at now: a record of the batch produced later (a resubmission) is not cancelled.
            let bound = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            let cancel = try await control(
                fixture, pipeline, ["cancel", group, "--batch", "migration-7", "--produced-before", bound, "--reason", "stop the migration", "--by", "sre"])
            #expect(cancel.status == 0, "\(cancel.output)")
            try await worker.waitFor("cancel v1 of \(group) by sre")
            // Produced after the cancel's bound: the same batch, untouched by it.
            let later = deletions(fixture, batch: "migration-7", count: 1).map { request in
                var request = request
                request.id = "after-the-cancel"
                return request
            }
            try await fixture.submit(later, key: { _ in "one-key" })

            let outcomes = try await fixture.waitForOutcomes((batch + later).map(\.id))
            let answered = batch.filter { outcomes[$0.id]?.status != .cancelled }
            let cancelled = batch.filter { outcomes[$0.id]?.status == .cancelled }
            #expect(!answered.isEmpty && !cancelled.isEmpty, "the cancel came mid-run: \(answered.count) answered, \(cancelled.count) cancelled")
            for request in answered {
                let outcome = try #require(outcomes[request.id])
                #expect(outcome.status == .succeeded && outcome.counts == ["OK": 2], "a started request finishes whole and is reported as answered: \(outcome)")
                for installation in request.items { #expect(!fixture.backend.isLive(installation: installation)) }
            }
            for request in cancelled {
                for installation in request.items {
                    #expect(fixture.backend.isLive(installation: installation), "\(installation) of a cancelled request was erased")
                }
            }
            #expect(fixture.backend.stats["installations.delete"].calls == 2 * answered.count + 2, "calls only for answered requests and the later one")
            #expect(outcomes["after-the-cancel"]?.status == .succeeded, "produced after the bound: not cancelled")
        }
    }
    @Test(
        "a cancel of a batch whose records are on a topic the pipeline does not read is refused, naming the topics; a batch the topic does not have is warned of"
    )
    func batchOfAnotherPipeline() async throws {
        try await withPipelineFixture { fixture in
            let folder = try RunFolder(fixture, name: "cancel-check")
            defer { folder.remove() }
            let group = "cancel-check"
            let pipeline = try folder.pipeline(fixture, group: group, "ops: [installations.delete]")
            try fixture.kafka.createTopic("elsewhere", partitions: 1)
            let input = folder.url.appendingPathComponent("fids.txt")
            try "fid-check-1\n".write(to: input, atomically: true, encoding: .utf8)
            func submit(_ batch: String, to topic: String) async throws {
                let result = try await OperatorCommand.run(
                    [
                        "submit", "--op", "installations.delete", "--request-topic", topic, "--batch", batch, "--pipeline", "deletions", "--pipelines",
                        pipeline, input.path,
                    ], brokers: fixture.kafka.bootstrapServers)
                #expect(result.status == 0, "\(result.output)")
            }
            try await submit("theirs-1", to: "elsewhere")
            let refused = try await control(fixture, pipeline, ["cancel", group, "--batch", "theirs-1", "--reason", "wrong one", "--by", "sre"])
            #expect(refused.status == 64, "\(refused.output)")
            #expect(refused.output.contains("batch theirs-1's records are on elsewhere, which pipeline \(group) does not read"), "\(refused.output)")
            // The manifest's pipeline is the submitter's word: on this pipeline's topic, the cancel goes.
            try await submit("ours-1", to: fixture.requestTopic)
            let ours = try await control(fixture, pipeline, ["cancel", group, "--batch", "ours-1", "--reason", "stop", "--by", "sre"])
            #expect(ours.status == 0 && !ours.output.contains("warning"), "\(ours.output)")
            // `batches` shows it cancelled: the cancel names the batch, whatever its manifest says.
            let listed = try await OperatorCommand.run(
                ["batches", "--json", "--outcomes", fixture.outcomeTopic, "--pipelines", pipeline], brokers: fixture.kafka.bootstrapServers)
            let line = listed.output.split(separator: "\n").first { $0.contains(#""name":"ours-1""#) }
            #expect(line?.contains(#""state":"cancelled""#) == true, "\(listed.output)")
            let typo = try await control(fixture, pipeline, ["cancel", group, "--batch", "thiers-1", "--reason", "typo", "--by", "sre"])
            #expect(typo.status == 0 && typo.output.contains("warning: no batch thiers-1 in iidbatch.batches"), "\(typo.output)")
        }
    }
}
