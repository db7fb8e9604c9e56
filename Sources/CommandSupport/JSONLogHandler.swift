import Foundation
import Logging
import Pipeline
import Synchronization
import WireJSON

/// A swift-log handler writing one JSON object per line to stderr (`--log-format json`), in
/// Google Cloud Logging's structured form, which its agents (GKE, Cloud Run, the Ops Agent) read
/// from a container's output:
///
/// - `severity`: the level as Cloud Logging names it (`severity(_:)`),
/// - `message`: the text,
/// - `time`: when, RFC 3339 in UTC with milliseconds,
/// - `logging.googleapis.com/labels`: `logger` (the logger's label) and `pipeline` when the
///   logger has one, which become the entry's labels,
/// - `metadata`: the logger's other metadata, as strings.
///
/// Other metadata stays under `metadata` rather than at the top level, where Cloud Logging gives
/// some names a meaning of their own (`httpRequest`, `logging.googleapis.com/trace`, …): a
/// metadata key can never change how the entry is read, and is found at `jsonPayload.metadata.KEY`.
package struct JSONLogHandler: LogHandler {
    /// The key of the entry's labels, as Cloud Logging reads it.
    package static let labelsKey = "logging.googleapis.com/labels"

    /// One writer for every handler: lines from many threads never interleave.
    private static let output = Mutex(FileHandle.standardError)

    /// The logger's label, written as the entry's `logger` label.
    package let label: String
    /// The least severe level written.
    package var logLevel: Logger.Level
    /// The logger's metadata, written with every entry.
    package var metadata: Logger.Metadata = [:]

    /// A handler for the logger `label`, writing `logLevel` and above.
    package init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    /// One metadata value, by key.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one JSON line, its metadata merged over the logger's.
    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        Self.write(Self.entry(severity: Self.severity(event.level), message: "\(event.message)", label: label, metadata: merged, time: Date()))
    }

    /// Cloud Logging's name for `level`: trace and debug are DEBUG, the others their own name in
    /// capitals (INFO, NOTICE, WARNING, ERROR, CRITICAL).
    package static func severity(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    /// One line's object: `severity`, `message`, `time`, the labels (`logger` = `label`, and
    /// `pipeline` taken out of `metadata`), and the rest of `metadata` under `metadata`.
    package static func entry(severity: String, message: String, label: String, metadata: Logger.Metadata, time: Date) -> [String: Any] {
        var metadata = metadata
        var labels = ["logger": label]
        if let pipeline = metadata.removeValue(forKey: "pipeline") { labels["pipeline"] = "\(pipeline)" }
        var object: [String: Any] = ["severity": severity, "message": message, "time": WireDate.text(time), labelsKey: labels]
        if !metadata.isEmpty { object["metadata"] = metadata.mapValues { "\($0)" } }
        return object
    }

    /// Writes `object` as one line.
    package static func write(_ object: [String: Any]) {
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        output.withLock { $0.write(line) }
    }
}
