import ArgumentParser
import Logging

/// What `run`, `demo` and the benchmarks share to start workers.
enum WorkerSetup {
    /// Sends log lines at `levelName` and above to stderr.
    static func bootstrapLogging(_ levelName: String) throws {
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level: '\(levelName)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
