import Emulator
import Foundation
import InstanceAPI
import Pipeline
import Testing
import WireJSON

/// The GDPR question, "is subject S erased, and when?", answered by `iidbatch outcomes --subject`
/// from the outcomes of real deletions; and `outcomes --follow` watching them arrive.
@Suite("iidbatch outcomes: erasure receipts and following", .serialized)
struct ErasureReceiptTests {
    @Test("each installation's final code and time; ERASED (exit 0) only when every one is gone")
    func receipt() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let brokers = fixture.kafka.bootstrapServers
            fixture.backend.seed(SeedRequest(installations: ["fid-user42-phone", "fid-user42-tablet", "fid-user7-laptop"]))
            let worker = try fixture.startWorker(fixture.pipeline())
            // Watch from before the first outcome, as an operator would.
            let follower = try await ChildProcess(try Programs.iidbatch, ["outcomes", "--from", fixture.outcomeTopic, "--follow", "--brokers", brokers])
            try await follower.waitFor("COMPLETED")

            func submit(_ subject: String, _ installations: [String]) async throws {
                let result = try await OperatorCommand.run(
                    ["submit", "--op", "installations.delete", "--subject", subject, "--request-topic", fixture.requestTopic, "-"],
                    brokers: brokers, stdin: Data(installations.joined(separator: "\n").utf8))
                #expect(result.status == 0, "\(result.output)")
            }
            // One installation was never there (already absent); one id is malformed and refused.
            try await submit("user-42", ["fid-user42-phone", "fid-user42-tablet", "fid-user42-gone-long-ago"])
            try await submit("user-7", ["fid-user7-laptop", "short"])
            try await fixture.waitForRead({ "both outcomes (\($0.outcomes.count) read)" }) { $0.outcomes.count >= 2 }
            // Each outcome's partition is read on its own: the follower prints them in either order.
            try await follower.waitFor("installations.delete user-7")
            try await follower.waitFor("installations.delete user-42")
            follower.interrupt()
            #expect(try await follower.waitForExit() == 0)
            #expect(follower.text.contains("2 outcome(s): succeeded 1, partial 1"), "\(follower.text)")
            await worker.stop()

            let erased = try await OperatorCommand.run(
                ["outcomes", "--from", fixture.outcomeTopic, "--requests", fixture.requestTopic, "--subject", "user-42"], brokers: brokers)
            #expect(erased.status == 0, "\(erased.output)")
            let receipt = try #require(fixture.outcomes.first { $0.target["subject"] == "user-42" }?.receipt)
            #expect(receipt.map(\.code) == [.ok, .ok, .alreadyAbsent])
            for line in receipt {
                let time = WireDate.text(line.at)
                #expect(erased.output.contains(line.item.padded(40) + " " + line.code.rawValue.padded(16) + " " + time), "\(erased.output)")
            }
            let last = WireDate.text(try #require(receipt.map(\.at).max()))
            #expect(erased.output.contains("subject user-42: ERASED at \(last) (OK=2 ALREADY_ABSENT=1)"), "\(erased.output)")
            #expect(!erased.output.contains("user-7"), "only the subject asked about")

            let outstanding = try await OperatorCommand.run(
                ["outcomes", "--from", fixture.outcomeTopic, "--requests", fixture.requestTopic, "--subject", "user-7"], brokers: brokers)
            #expect(outstanding.status == 1, "\(outstanding.output)")
            #expect(
                outstanding.output.contains("subject user-7: NOT ERASED: 1 of 2 installation(s) outstanding: short INVALID_ARGUMENT"), "\(outstanding.output)")

            let unknown = try await OperatorCommand.run(
                ["outcomes", "--from", fixture.outcomeTopic, "--requests", fixture.requestTopic, "--subject", "user-99"], brokers: brokers)
            #expect(unknown.status == 1 && unknown.output.contains("subject user-99: no installations.delete outcome names this subject"), "\(unknown.output)")
        }
    }
}
