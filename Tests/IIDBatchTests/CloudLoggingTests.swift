import Foundation
import Logging
import Testing

@testable import CommandSupport

/// The JSON log lines' form: Cloud Logging's severities, time, labels and metadata.
@Suite("JSON log lines in Cloud Logging's structured form")
struct CloudLoggingTests {
    @Test(
        "each swift-log level has Cloud Logging's severity",
        arguments: [
            (Logger.Level.trace, "DEBUG"), (.debug, "DEBUG"), (.info, "INFO"), (.notice, "NOTICE"), (.warning, "WARNING"), (.error, "ERROR"),
            (.critical, "CRITICAL"),
        ])
    func severity(_ level: Logger.Level, _ expected: String) {
        #expect(JSONLogHandler.severity(level) == expected)
    }

    @Test("an entry: severity, message, time in RFC 3339 UTC, labels with the logger and the pipeline, the rest under metadata")
    func entry() throws {
        let time = Date(timeIntervalSince1970: 1_767_225_600.25)  // 2026-01-01T00:00:00.250Z
        let object = JSONLogHandler.entry(
            severity: "WARNING", message: "slow", label: "iidbatch.worker", metadata: ["pipeline": "topics", "partition": "3", "severity": "spoof"], time: time)
        #expect(object["severity"] as? String == "WARNING")
        #expect(object["message"] as? String == "slow")
        #expect(object["time"] as? String == "2026-01-01T00:00:00.250Z")
        #expect(object[JSONLogHandler.labelsKey] as? [String: String] == ["logger": "iidbatch.worker", "pipeline": "topics"])
        #expect(object["metadata"] as? [String: String] == ["partition": "3", "severity": "spoof"], "metadata never overrides a field Cloud Logging reads")
        #expect(Set(object.keys) == ["severity", "message", "time", "logging.googleapis.com/labels", "metadata"])
        let bare = JSONLogHandler.entry(severity: "INFO", message: "m", label: "iidbatch", metadata: [:], time: time)
        #expect(bare["metadata"] == nil)
    }

    @Test("the format the arguments ask for, for errors found while parsing them")
    func requested() {
        #expect(LogFormat.requested(in: ["run", "--log-format", "json"]) == .json)
        #expect(LogFormat.requested(in: ["run", "--log-format=json", "--http-port", "x"]) == .json)
        #expect(LogFormat.requested(in: ["run", "--log-format", "text"]) == .text)
        #expect(LogFormat.requested(in: ["run", "--log-format"]) == nil)
        #expect(LogFormat.requested(in: ["run", "--log-format", "xml"]) == nil)
        #expect(LogFormat.requested(in: ["run", "--", "--log-format", "json"]) == nil, "after --, arguments are not options")
        #expect(LogFormat.requested(in: ["submit", "-"]) == nil)
    }
}
