import Foundation
import Testing

/// The README's walkthrough (between `<!-- walkthrough -->` and `<!-- /walkthrough -->`), run
/// by bash as written (`ReadmeScript`).
@Suite("The README walkthrough, run as written", .heavy)
struct ReadmeWalkthroughTests {
    @Test("submit, watch, reconcile, replay after the fault clears, and a GDPR receipt: every command exits 0")
    func walkthrough() async throws {
        let (commands, status, output) = try await ReadmeScript.run(section: "walkthrough", ports: TestPorts.readmeWalkthrough)
        #expect(commands.count >= 10, "\(commands)")
        #expect(status == 0, "\(output)")
        #expect(output.contains("submitted 25 record(s), 25000 items, to iidbatch.topic-changes"), "\(output)")
        let audits = output.components(separatedBy: "$ iidbatch reconcile --requests iidbatch.topic-changes")
        #expect(audits.count == 3, "two audits of the migration: \(output)")
        if audits.count == 3 {
            #expect(audits[1].contains("topics.subscribe     partial"), "unavailable items ran out of retries: \(audits[1])")
            #expect(audits[1].contains("UNAVAILABLE="), "\(audits[1])")
            #expect(audits[2].contains("topics.subscribe     succeeded 25; items: OK=25000"), "after the replay: \(audits[2])")
            #expect(audits[2].contains("complete: every request has an outcome"))
        }
        #expect(output.contains("dry run: would replay "), "\(output)")
        #expect(output.contains("replayed "), "\(output)")
        for fid in ["fid-user-42-phone", "fid-user-42-tablet", "fid-user-42-watch"] {
            #expect(output.contains(fid.padded(40) + " OK "), "\(output)")
        }
        #expect(output.contains("subject user-42: ERASED at "), "\(output)")
        // Ctrl-C at the end: broker, emulator and workers stop together, and the workers still exit.
        #expect(!output.contains("still running 90 s after SIGTERM"), "\(output)")
        #expect(output.contains("iidbatch run: stopped after "), "\(output)")
    }
}
