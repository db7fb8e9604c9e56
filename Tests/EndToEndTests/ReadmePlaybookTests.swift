import Foundation
import Pipeline
import Testing

/// The README's migration playbook ("Moving off the Instance ID API", between `<!-- playbook -->`
/// and `<!-- /playbook -->`), run by bash as written (`ReadmeScript`).
@Suite("The README migration playbook, run as written")
struct ReadmePlaybookTests {
    @Test("export device groups, subscribe tokens and FIDs on FCM v1, repeat harmlessly, look a FID up: every command exits 0")
    func playbook() async throws {
        let (commands, status, output) = try await ReadmeScript.run(section: "playbook", ports: TestPorts.readmePlaybook)
        #expect(commands.count >= 15, "\(commands)")
        #expect(status == 0, "\(output)")
        // The export: two groups in the compacted topic, keyed by name, with their members.
        let exportLines = output.split(separator: "\n").filter { $0.hasPrefix("appUser-") }
        #expect(exportLines.count == 2, "\(output)")
        for line in exportLines {
            let parts = line.split(separator: " ", maxSplits: 1)
            let export = try GroupExport.decode(Array(parts[1].utf8))
            #expect(export.group == String(parts[0]))
            #expect(export.members == (export.group == "appUser-Chris" ? ["tok-000001", "tok-000002", "tok-000003"] : ["tok-000004", "tok-000005"]))
        }
        #expect(!output.contains("appUser-Gone {"), "a missing group writes no export")
        #expect(output.contains("groups.export        partial 1; items: OK=2 NOT_FOUND=1"), "two groups found, one gone: \(output)")
        // Topics on FCM v1: every subscribe succeeded, the repeat too.
        let topicAudit = output.components(separatedBy: "$ iidbatch reconcile --requests iidbatch.topic-changes --wait 2m").last ?? ""
        #expect(topicAudit.contains("topics.subscribe     succeeded 5; items: OK=3004"), "\(topicAudit)")
        // The lookup: the FID's topics from the list call.
        let lookup = try #require(output.split(separator: "\n").first { $0.contains("\"requestId\":\"lookup-000001\"") })
        let outcome = try Outcome.decoder().decode(Outcome.self, from: Data(lookup.utf8))
        #expect(outcome.topics == ["cR5dLwyqQh2wVz0W3Jc8ak": ["movies"]], "\(lookup)")
        #expect(!output.contains("still running 90 s after SIGTERM"), "\(output)")
    }
}
