import Foundation
import Testing

/// The README's user quick start ("Run it against Google with ADC in five steps", between
/// `<!-- quickstart -->` and `<!-- /quickstart -->`), run by bash (`ReadmeScript`) with what
/// stands in for the user's Kafka cluster and for Google. Every other command runs as written.
///
/// The substitutions, and why:
/// 1. `export IIDBATCH_BROKERS=<your cluster>` names the embedded broker instead, and the first
///    `kafka-topics.sh --create` starts it (`iidbatch broker`) with every topic step 1 creates, at
///    step 1's partitions; the later ones are not run. The suite has no Kafka distribution, and the
///    mock cluster ignores `retention.ms` and `cleanup.policy` (it always has the control topic).
/// 2. `gcloud` is not run: no Google project here. The one that creates the service-account key
///    (`keys create key.json`) becomes the emulator writing `key.json`, a service-account key for
///    `$PROJECT` whose `token_uri` is the emulator's: the README's own
///    `export GOOGLE_APPLICATION_CREDENTIALS=$PWD/key.json` then makes ADC find it, as written.
/// 3. `iidbatch run` gains `--backend-url`: Google's API endpoints become the emulator's. Its
///    log line naming the credentials' source is shown, to check that ADC found the key.
///    `--project` is kept when the binary has it, and dropped when it does not yet (a branch
///    built before project selection): the key names the same project then.
/// 4. The command that writes the user's FIDs to a file is followed by seeding them into the
///    emulator, as the installations your app created exist at Google.
/// 5. `iidbatch` is this build (`.build/debug`), not an installed release binary: the same code.
@Suite("The README quick start, run against the embedded broker and the emulator")
struct ReadmeQuickStartTests {
    /// The topics the shipped pipeline files name (`request-topic`, `outcome-topic`,
    /// `dead-letter-topic`, `export-topic`).
    private func pipelineTopics() throws -> Set<String> {
        let folder = ReadmeScript.repository.appendingPathComponent("pipelines")
        var topics: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".yaml") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /(?m)^(?:request|outcome|dead-letter|export)-topic:\s*(\S+)/) { topics.insert(String(match.1)) }
        }
        return topics
    }

    @Test("create topics, an identity through ADC, run, submit an erasure, read its receipt: every command exits 0 and the user is ERASED")
    func quickStart() async throws {
        let readme = try String(contentsOf: ReadmeScript.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let written = try ReadmeScript.commands(inReadme: readme, section: "quickstart")

        // Step 1 creates every topic the shipped pipelines name, and the control topic.
        var created: [(name: String, partitions: Int)] = []
        for command in written where command.hasPrefix("kafka-topics.sh ") {
            let match = try #require(command.firstMatch(of: /--topic (\S+) --partitions (\d+)/), "\(command)")
            created.append((String(match.1), Int(match.2)!))
        }
        let missing = try pipelineTopics().union(["iidbatch.control"]).subtracting(created.map(\.name))
        #expect(missing.isEmpty, "step 1 does not create \(missing.sorted())")
        let brokerTopics = created.filter { $0.name != "iidbatch.control" }.map { "--topic \($0.name):\($0.partitions)" }.joined(separator: " ")

        let help = try await ChildProcess.run(try Programs.iidbatch, ["run", "--help"])
        let hasProject = help.output.contains("--project")

        var startedBroker = false
        let (commands, status, output) = try await ReadmeScript.run(section: "quickstart", ports: TestPorts.readmeQuickStart) { command, ports in
            let emulator = "http://127.0.0.1:\(ports.emulator)"
            if command.hasPrefix("export IIDBATCH_BROKERS=") {
                return [#"export PATH="$PWD/.build/debug:$PATH""#, "export IIDBATCH_BROKERS=127.0.0.1:\(ports.kafka)"]
            }
            if command.hasPrefix("kafka-topics.sh ") {
                defer { startedBroker = true }
                return startedBroker ? ["# (created by the embedded broker) " + command] : ["iidbatch broker --port \(ports.kafka) \(brokerTopics) &"]
            }
            if command.hasPrefix("gcloud iam service-accounts keys create key.json ") {
                return ["iidbatch emulator --port \(ports.emulator) --project \"$PROJECT\" --write-key key.json &"]
            }
            if command.hasPrefix("gcloud ") { return ["# (no Google project here) " + command] }
            if command.hasPrefix("iidbatch run "), command.hasSuffix("&") {
                var run = String(command.dropLast()).trimmingCharacters(in: .whitespaces)
                if !hasProject { run = run.replacing(#/ --project \S+/#, with: "") }
                return [run + " --backend-url \(emulator) &", "grep -h '^iidbatch run: credentials from' background-*.log"]
            }
            if let file = command.firstMatch(of: /^printf .* > (\S+\.txt)$/)?.1 {
                let seed = #"curl -fsS -w '\n' -X POST \#(emulator)/emulator/v1/seed -d "{\"installations\": [$(sed 's/.*/"&"/' \#(file) | paste -sd, -)]}""#
                return [command, seed]
            }
            return [command]
        }
        #expect(startedBroker, "step 1 has no kafka-topics.sh command")
        #expect(commands.first?.hasPrefix("export IIDBATCH_BROKERS=") == true, "the PATH is set with the first command: \(commands)")
        #expect(commands.contains { $0.hasPrefix("iidbatch run pipelines/") }, "\(commands)")
        #expect(commands.contains { $0.hasPrefix("iidbatch submit --op installations.delete --subject user-42") }, "\(commands)")
        #expect(status == 0, "\(output)")
        #expect(output.contains("iidbatch run: credentials from service-account key"), "ADC found the key through GOOGLE_APPLICATION_CREDENTIALS: \(output)")
        #expect(output.contains(#""installations":2"#), "the emulator took the two FIDs: \(output)")
        #expect(output.contains("submitted 1 record(s), 2 items, to iidbatch.deletions"), "\(output)")
        #expect(output.contains("complete: every request has an outcome"), "\(output)")
        for fid in ["cR5dLwyqQh2wVz0W3Jc8ak", "dGw3Z0u9Rk6pQm1nB2vX7y"] {
            #expect(output.contains(fid.padded(40) + " OK "), "the installation was deleted, not found absent: \(output)")
        }
        #expect(output.contains("subject user-42: ERASED at "), "\(output)")
        #expect(!output.contains("still running 90 s after SIGTERM"), "\(output)")
    }
}
