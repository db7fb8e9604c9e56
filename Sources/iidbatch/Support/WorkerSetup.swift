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

    /// A log level by name.
    static func logLevel(_ name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name) else {
            throw ValidationError("--log-level: '\(name)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }
}
