import Emulator
import Foundation
import Testing

/// `--log-format json` when the run cannot start: every line the process writes is a Cloud
/// Logging JSON object, the last error too, whether the command or ArgumentParser found it.
@Suite("iidbatch run --log-format json: the fatal line too")
struct JSONLogTests {
    /// The severities Cloud Logging knows that iidbatch writes.
    static let severities: Set<String> = ["DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL"]

    /// True when `text` is RFC 3339 with fractional seconds in UTC, as Cloud Logging reads `time`.
    static func isRFC3339UTC(_ text: String) -> Bool {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) != nil && text.hasSuffix("Z")
    }

    /// Every line of `output` as a JSON object; records an issue for each line that is not one,
    /// or lacks `severity`, `message`, `time` or the labels.
    private func objects(_ output: String) -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for line in output.split(separator: "\n") where !line.isEmpty {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                Issue.record("not one JSON object: \(line)")
                continue
            }
            let severity = object["severity"] as? String
            #expect(severity.map(Self.severities.contains) == true, "severity \(severity ?? "missing"): \(line)")
            #expect(object["message"] is String, "no message: \(line)")
            let time = object["time"] as? String ?? ""
            #expect(Self.isRFC3339UTC(time), "time is RFC 3339 in UTC with a fraction: \(line)")
            #expect((object["logging.googleapis.com/labels"] as? [String: String])?["logger"] != nil, "labels: \(line)")
            objects.append(object)
        }
        return objects
    }

    /// A folder with a pipeline file and a key `run` can load.
    private func folder() throws -> (url: URL, pipeline: String, key: String) {
        let url = try OperatorCommand.temporaryFolder("jsonlog")
        let pipeline = url.appendingPathComponent("p.yaml").path
        try "request-topic: r\ngroup: json-fatal\noutcome-topic: o\ndead-letter-topic: d\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let key = url.appendingPathComponent("key.json").path
        try EmulatorBackend(configuration: EmulatorConfiguration()).makeServiceAccountKey(tokenURI: "http://127.0.0.1:1/token")
            .write(to: URL(fileURLWithPath: key))
        return (url, pipeline, key)
    }

    @Test("a cluster that does not answer: every line is JSON, librdkafka's included, and the last is the error at ERROR with exit status 69")
    func deadBroker() async throws {
        let (url, pipeline, key) = try folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let nobody = try DeadBroker.closed()
        let run = try await ChildProcess(
            try Programs.iidbatch,
            ["run", pipeline, "--credentials", key, "--brokers", nobody.address, "--timeout", "2s", "--log-format", "json", "--log-level", "debug"])
        #expect(try await run.waitForExit(seconds: 120) == 69, "\(run.text)")
        let lines = objects(run.text)
        let last = try #require(lines.last)
        #expect(last["severity"] as? String == "ERROR", "\(last)")
        #expect((last["message"] as? String)?.hasPrefix("Error: ") == true, "\(last)")
        #expect((last["message"] as? String)?.contains("the Kafka brokers at \(nobody.address) did not answer") == true, "\(last)")
        #expect((last["metadata"] as? [String: String])?["exit-status"] == "69", "\(last)")
        #expect(lines.contains { $0["severity"] as? String == "NOTICE" && ($0["message"] as? String)?.hasPrefix("iidbatch run: credentials from") == true })
        #expect(
            lines.contains { ($0["logging.googleapis.com/labels"] as? [String: String])?["logger"] == "iidbatch.kafka" },
            "librdkafka's lines about the refused connection are JSON too:\n\(run.text)")
    }

    @Test("a usage error found after the format was chosen is one JSON line, usage help inside, exit 64")
    func usageErrorAfterFormat() async throws {
        let run = try await ChildProcess(try Programs.iidbatch, ["run", "/no/such/pipelines", "--log-format", "json", "--log-level", "loud"])
        #expect(try await run.waitForExit() == 64, "\(run.text)")
        let lines = objects(run.text)
        #expect(lines.count == 1, "\(run.text)")
        let message = try #require(lines.first?["message"] as? String)
        #expect(message.contains("--log-level: 'loud' is not one of") && message.contains("Usage: iidbatch"), "\(message)")
        #expect(lines.first?["severity"] as? String == "ERROR")
    }

    @Test("an argument error ArgumentParser finds before the command runs is JSON when the arguments ask for json")
    func parseErrorAskingForJSON() async throws {
        let run = try await ChildProcess(try Programs.iidbatch, ["run", "--log-format=json", "--http-port", "not-a-port"])
        #expect(try await run.waitForExit() == 64, "\(run.text)")
        let lines = objects(run.text)
        #expect(lines.count == 1 && (lines.first?["message"] as? String)?.contains("not-a-port") == true, "\(run.text)")
    }
}
