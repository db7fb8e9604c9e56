import Foundation
import Testing

/// The README's walkthrough (between `<!-- walkthrough -->` and `<!-- /walkthrough -->`), run
/// by bash as written. Two things differ from a person's run: the ports 9092 and 8080 become free
/// ones, so the test cannot collide with a Kafka or a web server already on the machine; and
/// each `command &` has its output sent to a log file and is waited for until it says it is
/// ready, as a person waits for the banner before typing the next command.
@Suite("The README walkthrough, run as written")
struct ReadmeWalkthroughTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The commands of the walkthrough's `sh` blocks, continuation lines joined.
    static func commands(inReadme text: String) throws -> [String] {
        guard let start = text.range(of: "<!-- walkthrough -->"), let end = text.range(of: "<!-- /walkthrough -->") else {
            throw ProcessFailure(message: "README.md has no <!-- walkthrough --> … <!-- /walkthrough --> section")
        }
        var commands: [String] = []
        var inBlock = false
        var pending = ""
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = line.hasPrefix("```sh")
                continue
            }
            guard inBlock else { continue }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasSuffix("\\") {
                pending += trimmed.dropLast() + " "
                continue
            }
            commands.append(pending + trimmed)
            pending = ""
        }
        return commands
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test("submit, watch, reconcile, replay after the fault clears, and a GDPR receipt: every command exits 0")
    func walkthrough() async throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = try Self.commands(inReadme: readme)
        #expect(commands.count >= 10, "\(commands)")
        let kafkaPort = Int.random(in: 20_000..<26_000)
        let emulatorPort = Int.random(in: 26_000..<32_000)

        // The repository as the walkthrough expects it: .build/debug/iidbatch and pipelines/.
        let folder = try OperatorCommand.temporaryFolder("walkthrough")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".build"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent(".build/debug"), withDestinationURL: try Programs.iidbatch.deletingLastPathComponent())
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("pipelines"), withDestinationURL: Self.repository.appendingPathComponent("pipelines"))

        var script = """
            set -euo pipefail
            cd \(Self.quoted(folder.path))
            stop() {
                local status=$?
                set +e
                kill -TERM $(jobs -rp) 2>/dev/null
                for _ in $(seq 900); do [ -z "$(jobs -rp)" ] && break; sleep 0.1; done
                [ -z "$(jobs -rp)" ] || { echo "still running 90 s after SIGTERM:"; jobs -l; kill -KILL $(jobs -rp); }
                wait
                for log in background-*.log; do echo "--- $log"; tail -n 20 "$log"; done
                exit $status
            }
            trap stop EXIT
            trap 'exit 143' TERM INT
            ready() {
                for _ in $(seq 1200); do grep -qE '^Ctrl-C stops|^iidbatch run: ' "$1" && return 0; sleep 0.1; done
                echo "not ready after 120 s: $1"; cat "$1"; return 1
            }

            """
        for (number, written) in commands.enumerated() {
            let command = written.replacingOccurrences(of: "9092", with: "\(kafkaPort)").replacingOccurrences(of: "8080", with: "\(emulatorPort)")
            script += "printf '%s\\n' \(Self.quoted("$ " + command))\n"
            if command.hasSuffix("&") {
                script += "\(command.dropLast()) > background-\(number).log 2>&1 &\nready background-\(number).log\n"
            } else {
                script += command + "\n"
            }
        }
        let scriptFile = folder.appendingPathComponent("walkthrough.sh")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)

        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [scriptFile.path], seconds: 600)
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
