import Foundation

/// Runs a README section (between `<!-- NAME -->` and `<!-- /NAME -->`) by bash as written. Two
/// things differ from a person's run: the ports 9092 and 8080 become free ones, so the run cannot
/// collide with a Kafka or a web server already on the machine; and each `command &` has its
/// output sent to a log file and is waited for until it says it is ready, as a person waits for
/// the banner before typing the next command. A section written for a user's own cluster and
/// Google (the quick start) passes a `rewrite` that says what stands in for them.
enum ReadmeScript {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The commands of the section's `sh` blocks, continuation lines joined.
    static func commands(inReadme text: String, section: String = "walkthrough") throws -> [String] {
        guard let start = text.range(of: "<!-- \(section) -->"), let end = text.range(of: "<!-- /\(section) -->") else {
            throw ProcessFailure(message: "README.md has no <!-- \(section) --> … <!-- /\(section) --> section")
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

    /// The walkthrough's substitution: the ports 9092 and 8080 become the free ones drawn.
    static func localPorts(_ command: String, _ ports: (kafka: Int, emulator: Int)) -> [String] {
        [command.replacingOccurrences(of: "9092", with: "\(ports.kafka)").replacingOccurrences(of: "8080", with: "\(ports.emulator)")]
    }

    /// Runs the section's commands in a fresh folder that looks like the repository to them
    /// (`.build/debug/iidbatch` and `pipelines/`); returns bash's exit status and the output,
    /// each command echoed as `$ command` before its output.
    /// Ports are drawn from `ports` (below Linux's ephemeral range, 32768+, and apart per
    /// section, since suites run side by side): the lower half for Kafka, the upper for the emulator.
    /// `rewrite` turns each README command into the commands run in its place (by default
    /// `localPorts`); a produced line starting with `#` is only echoed, to show what was not run.
    static func run(
        section: String, ports: Range<Int>,
        rewrite: (_ command: String, _ ports: (kafka: Int, emulator: Int)) -> [String] = localPorts
    ) async throws -> (commands: [String], status: Int32, output: String) {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = try commands(inReadme: readme, section: section)
        let middle = (ports.lowerBound + ports.upperBound) / 2
        let kafkaPort = Int.random(in: ports.lowerBound..<middle)
        let emulatorPort = Int.random(in: middle..<ports.upperBound)

        let folder = try OperatorCommand.temporaryFolder(section)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".build"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent(".build/debug"), withDestinationURL: try Programs.iidbatch.deletingLastPathComponent())
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("pipelines"), withDestinationURL: repository.appendingPathComponent("pipelines"))

        var script = """
            set -euo pipefail
            cd \(quoted(folder.path))
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
                for _ in $(seq 1200); do
                    grep -qE '^Ctrl-C stops|^iidbatch run: ' "$1" && return 0
                    kill -0 "$2" 2>/dev/null || { echo "exited before it was ready: $1"; cat "$1"; return 1; }
                    sleep 0.1
                done
                echo "not ready after 120 s: $1"; cat "$1"; return 1
            }

            """
        var number = 0
        for written in commands {
            for command in rewrite(written, (kafkaPort, emulatorPort)) {
                number += 1
                if command.hasPrefix("#") {
                    script += "printf '%s\\n' \(quoted(command))\n"
                    continue
                }
                script += "printf '%s\\n' \(quoted("$ " + command))\n"
                if command.hasSuffix("&") {
                    script += "\(command.dropLast()) > background-\(number).log 2>&1 &\nready background-\(number).log $!\n"
                } else {
                    script += command + "\n"
                }
            }
        }
        let scriptFile = folder.appendingPathComponent("\(section).sh")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [scriptFile.path], seconds: 600)
        return (commands, status, output)
    }
}
