import ArgumentParser
import CommandSupport
import Foundation
import Kafka

/// The Kafka options every operator command takes, and where each property comes from;
/// `--timeout` (`KafkaTimeout`) among them.
///
/// Lowest first (`KafkaSettingLayer`): the built-in `bootstrap.servers` default, the properties
/// file of `-F`, `IIDBATCH_KAFKA_*` variables, `-X` assignments; `--brokers` or
/// `$IIDBATCH_BROKERS`, when given, set `bootstrap.servers` over all of them. Secrets belong in
/// the file or the environment, where `ps` does not show them.
struct KafkaOptions: ParsableArguments {
    /// The variable that stands for `--brokers` when the option is not given.
    static let brokersVariable = "IIDBATCH_BROKERS"
    /// `bootstrap.servers` when nothing else sets it.
    static let defaultBrokers = "localhost:9092"

    @Option(
        help: ArgumentHelp(
            "Kafka bootstrap servers, over any bootstrap.servers of -F, -X or \(KafkaSettings.environmentPrefix)BOOTSTRAP_SERVERS. Default: $\(KafkaOptions.brokersVariable), else those, else \(KafkaOptions.defaultBrokers).",
            valueName: "host:port,..."))
    var brokers: String?

    @Option(
        name: [.customShort("F"), .customLong("kafka-config")],
        help: ArgumentHelp(
            "A librdkafka properties file, as kcat's -F: key=value lines, # comments. \(KafkaSettings.environmentPrefix)<NAME> variables (SASL_PASSWORD → sasl.password, __ → _) override it, and -X overrides both.",
            valueName: "file"))
    var kafkaConfig: String?

    @Option(
        name: .customShort("X"),
        help: ArgumentHelp(
            "A Kafka client property, passed through (SASL, TLS, tuning). Repeatable. Keep secrets in -F or the environment: ps shows -X.",
            valueName: "key=value"))
    var properties: [String] = []

    @OptionGroup var timeout: KafkaTimeout

    /// Every property, with where it came from, read from the options, the file and
    /// `environment`.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> KafkaSettings {
        var settings = KafkaSettings()
        settings.set("bootstrap.servers", to: Self.defaultBrokers, layer: .builtInDefault, origin: "the default")
        if let file = kafkaConfig {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw RuntimeError(.noInput, "--kafka-config: cannot read \(file)")
            }
            do { try settings.apply(file: String(decoding: data, as: UTF8.self), named: file) } catch {
                throw RuntimeError(.config, "--kafka-config: \(error)")
            }
        }
        do { try settings.apply(environment: environment) } catch { throw RuntimeError(.config, "\(error)") }
        for property in properties {
            do { try settings.apply(assignment: property, origin: "-X") } catch { throw ValidationError("-X \(property): \(error)") }
        }
        if let brokers {
            settings.set("bootstrap.servers", to: brokers, layer: .brokers, origin: "--brokers")
        } else if let brokers = environment[Self.brokersVariable], !brokers.isEmpty {
            settings.set("bootstrap.servers", to: brokers, layer: .brokers, origin: "$" + Self.brokersVariable)
        }
        return settings
    }

    /// The client configuration these options describe.
    func configuration() throws -> KafkaConfiguration {
        try settings().configuration
    }
}
