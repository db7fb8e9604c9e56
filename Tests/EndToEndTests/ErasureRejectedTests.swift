import Emulator
import Foundation
import Testing

/// `iidbatch outcomes --subject S` over real outcomes: a rejected deletion of S hides its
/// installations, so S is not erased however the other deletions ended.
@Suite("iidbatch outcomes: a rejected deletion keeps its subject from being erased", .serialized)
struct ErasureRejectedTests {
    @Test("one deletion answered 200, another rejected (an empty installation): NOT ERASED, exit 1, naming the rejected one")
    func rejectedDeletion() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            fixture.backend.seed(SeedRequest(installations: ["fid-user42-phone"]))
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.produce([
                ("d-1", Array(#"{"id":"d-1","op":"installations.delete","subject":"user-42","installations":["fid-user42-phone"]}"#.utf8)),
                ("d-2", Array(#"{"id":"d-2","op":"installations.delete","subject":"user-42","installations":["fid-user42-tablet",""]}"#.utf8)),
            ])
            try await fixture.waitForRead({ "both outcomes (\($0.outcomes.count) read)" }) { $0.outcomes.count >= 2 }
            await worker.stop()
            #expect(fixture.outcomes.first { $0.requestID == "d-1" }?.status == .succeeded)

            let report = try await OperatorCommand.run(
                ["outcomes", "--from", fixture.outcomeTopic, "--requests", fixture.requestTopic, "--subject", "user-42"], brokers: brokers)
            #expect(report.status == 1, "\(report.output)")
            #expect(report.output.contains("d-2 rejected: installations[1]"), "\(report.output)")
            #expect(report.output.contains("subject user-42: NOT ERASED") && !report.output.contains("ERASED at"), "\(report.output)")
        }
    }

    @Test("a deletion of the subject with no outcome yet keeps it NOT ERASED, named; ERASED before it was produced")
    func deletionNotAnsweredYet() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            fixture.backend.seed(SeedRequest(installations: ["fid-user42-phone", "fid-user42-tablet"]))
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.produce([
                ("user-42", Array(#"{"id":"d-1","op":"installations.delete","subject":"user-42","installations":["fid-user42-phone"]}"#.utf8))
            ])
            try await fixture.waitForRead({ "the outcome (\($0.outcomes.count) read)" }) { $0.outcomes.count >= 1 }
            await worker.stop()
            let command = ["outcomes", "--from", fixture.outcomeTopic, "--requests", fixture.requestTopic, "--subject", "user-42"]
            let erased = try await OperatorCommand.run(command, brokers: brokers)
            #expect(erased.status == 0 && erased.output.contains("subject user-42: ERASED at"), "\(erased.output)")
            // A second deletion, produced while no worker runs: not run yet.
            try await fixture.produce([
                ("user-42", Array(#"{"id":"d-2","op":"installations.delete","subject":"user-42","installations":["fid-user42-tablet"]}"#.utf8))
            ])
            let pending = try await OperatorCommand.run(command, brokers: brokers)
            #expect(pending.status == 1, "\(pending.output)")
            #expect(
                pending.output.contains("d-2 (at \(fixture.requestTopic)/") && pending.output.contains("has no outcome: its deletion has not run to its end"),
                "\(pending.output)")
            #expect(pending.output.contains("subject user-42: NOT ERASED") && !pending.output.contains("ERASED at"), "\(pending.output)")
        }
    }
}
