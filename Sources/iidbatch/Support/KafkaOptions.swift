import ArgumentParser
import Foundation
import Kafka

/// The Kafka options every operator command takes, `--timeout` (`KafkaTimeout`) among them.
struct KafkaOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Kafka bootstrap servers; $IIDBATCH_BROKERS, when set, is the default.", valueName: "host:port,..."))
    var brokers: String = ProcessInfo.processInfo.environment["IIDBATCH_BROKERS"] ?? "localhost:9092"

    @Option(name: .customShort("X"), help: ArgumentHelp("A Kafka client property, passed through (SASL, TLS, tuning). Repeatable.", valueName: "key=value"))
    var properties: [String] = []

    @OptionGroup var timeout: KafkaTimeout

    /// The client configuration these options describe, `-X` properties applied in order.
    func configuration() throws -> KafkaConfiguration {
        var configuration = KafkaConfiguration(bootstrapServers: brokers)
        for property in properties {
            do { try configuration.apply(assignment: property) } catch { throw ValidationError("-X \(property): \(error)") }
        }
        return configuration
    }
}
