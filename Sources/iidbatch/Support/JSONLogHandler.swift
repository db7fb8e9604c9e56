import Foundation
import Logging
import Pipeline
import Synchronization

/// A swift-log handler writing one JSON object per line to stderr (`--log-format json`):
/// `timestamp` (ISO 8601 with milliseconds), `level`, `label`, `pipeline` when the logger has one,
/// `message`, and the other `metadata`. Log shippers read it without parsing text.
struct JSONLogHandler: LogHandler {
    /// One writer for every handler: lines from many threads never interleave.
    private static let output = Mutex(FileHandle.standardError)

    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var object: [String: Any] = [
            "timestamp": WireDate.text(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": "\(event.message)",
        ]
        if let pipeline = merged.removeValue(forKey: "pipeline") { object["pipeline"] = "\(pipeline)" }
        if !merged.isEmpty { object["metadata"] = merged.mapValues { "\($0)" } }
        Self.write(object)
    }

    /// Writes `object` as one line.
    static func write(_ object: [String: Any]) {
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        output.withLock { $0.write(line) }
    }
}
