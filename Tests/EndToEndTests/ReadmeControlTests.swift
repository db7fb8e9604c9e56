import Foundation
import Testing

/// The README's control section ("Steering it live", between `<!-- control -->` and
/// `<!-- /control -->`), run by bash as written (`ReadmeScript`).
@Suite("The README control section, run as written")
struct ReadmeControlTests {
    @Test("pause before the requests, get, set, resume, reset, history: every command exits 0 and the backlog completes")
    func controlSection() async throws {
        let (commands, status, output) = try await ReadmeScript.run(section: "control", ports: TestPorts.readmeControl)
        #expect(commands.count >= 12, "\(commands)")
        #expect(status == 0, "\(output)")
        #expect(output.contains("topic-changes: paused: false → true (override topic-changes v1 by"), "pause prints the change: \(output)")
        #expect(output.contains("topic-changes: PAUSED"), "get shows the pause: \(output)")
        #expect(output.contains("rate-limit: 3000 → 500"), "set prints the change: \(output)")
        #expect(output.contains("topics.subscribe     succeeded 2; items: OK=2000"), "the backlog completed after the resume: \(output)")
        #expect(output.contains("control topic iidbatch.control: 4 records"), "\(output)")
        #expect(!output.contains("still running 90 s after SIGTERM"), "\(output)")
    }
}
