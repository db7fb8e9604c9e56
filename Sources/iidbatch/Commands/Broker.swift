import ArgumentParser
import CommandSupport
import Kafka
import Pipeline

/// `iidbatch broker`: an embedded Kafka cluster in the foreground.
struct Broker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run an embedded Kafka cluster (librdkafka's mock cluster) until Ctrl-C.",
        discussion: """
            The brokers speak the real Kafka protocol on 127.0.0.1, so kcat or any client can use \
            them: kcat -L -b <bootstrap>. Brokers listen on ephemeral ports; with --port, a \
            forwarder on that port carries bootstrap traffic and clients then follow the \
            advertised brokers. The cluster always has iidbatch's control topic \
            (\(ControlTopic.defaultName)) and batch topic (\(BatchTopic.defaultName)). State lives in memory and is gone when the command stops.
            """
    )

    @Option(help: "Number of brokers (ids 1...N).")
    var brokers: Int = 1

    @Option(help: "A fixed bootstrap port on 127.0.0.1 (default: the brokers' own ephemeral ports).")
    var port: Int?

    @Option(name: .customLong("topic"), help: ArgumentHelp("A topic to create, as name or name:partitions. Repeatable.", valueName: "name[:partitions]"))
    var topics: [String] = []

    @Flag(help: "Print the cluster's log lines.")
    var verbose = false

    func validate() throws {
        guard brokers >= 1 else { throw ValidationError("--brokers must be at least 1, got \(brokers)") }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1-65535, got \(port)") }
    }

    func run() async throws {
        var specs = try topics.map { text in
            do { return try KafkaTopicSpec(parsing: text) } catch { throw ValidationError("--topic: \(error)") }
        }
        for spec in [ControlTopic.embeddedSpec, BatchTopic.embeddedSpec] where !specs.contains(where: { $0.name == spec.name }) { specs.append(spec) }
        let printLog: @Sendable (KafkaLogLevel, String) -> Void = { level, line in Output.error("[\(level)] \(line)") }
        let kafka = try EmbeddedKafka(brokers: brokers, port: port, topics: specs, logHandler: verbose ? printLog : EmbeddedKafka.criticalLines)
        Output.line("iidbatch broker: \(brokers) broker(s), librdkafka \(KafkaVersion.librdkafka) mock cluster on 127.0.0.1")
        Output.line("bootstrap servers: \(kafka.bootstrapServers)")
        Output.line("broker addresses: \(kafka.brokerAddresses)")
        if !specs.isEmpty {
            Output.line("topics: " + specs.map { "\($0.name) (\($0.partitions) partitions)" }.joined(separator: ", "))
        }
        Output.line("try: kcat -L -b \(kafka.bootstrapServers)")
        Output.line("Ctrl-C stops the cluster.")
        let signal = await Signals.waitForTermination()
        kafka.shutdown()
        Output.line("stopped on \(signal)")
    }
}
