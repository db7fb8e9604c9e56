import ArgumentParser
import Kafka
import Logging

/// What `run`, `demo` and the benchmarks share to start workers.
enum WorkerSetup {
    /// A Kafka configuration for `brokers` with `-X key=value` properties applied in order.
    static func kafkaConfiguration(brokers: String, properties: [String]) throws -> KafkaConfiguration {
        var configuration = KafkaConfiguration(bootstrapServers: brokers)
        for property in properties {
            do { try configuration.apply(assignment: property) } catch { throw ValidationError("-X \(property): \(error)") }
        }
        return configuration
    }

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
