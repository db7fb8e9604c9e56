import Kafka
import Logging

/// Topics whose records are the latest state per key (a pipeline's group exports, the control
/// topic): created with
/// `cleanup.policy=compact` when they do not exist yet, where the cluster allows it.
enum CompactedTopics {
    /// Makes sure each of `topics` exists; a missing one is created compacted. Never fails the
    /// run: a cluster that refuses (no CreateTopics rights, librdkafka's mock cluster, which does
    /// not implement it) gets a warning naming the topic and the setting to give it by hand.
    static func ensure(_ topics: Set<String>, configuration: KafkaConfiguration, logger: Logger) async {
        guard !topics.isEmpty else { return }
        do {
            let admin = try KafkaAdmin(configuration: configuration)
            defer { admin.close() }
            let existing = Set(try await admin.listTopics())
            let missing = topics.subtracting(existing).sorted()
            guard !missing.isEmpty else { return }
            try await admin.createTopics(
                missing.map { KafkaTopicSpec(name: $0, partitions: 1, configs: ["cleanup.policy": "compact"]) }, timeout: .seconds(10))
            logger.info("created \(missing.joined(separator: ", ")) with cleanup.policy=compact")
        } catch {
            logger.warning(
                "could not create \(topics.sorted().joined(separator: ", ")) as compacted topics (\(error)); create them with cleanup.policy=compact, or the broker creates them with its defaults"
            )
        }
    }
}
