import Foundation

/// What librdkafka's statistics (`statistics.interval.ms`) say of a consumer's partitions, typed:
/// the consumer lag of each partition it reports (the high watermark less the committed offset),
/// for partitions where librdkafka knows it.
public struct KafkaConsumerStatistics: Sendable, Hashable {
    /// Lag per partition, in records.
    public var lag: [KafkaTopicPartition: Int64]

    /// Statistics with `lag`.
    public init(lag: [KafkaTopicPartition: Int64]) {
        self.lag = lag
    }

    /// Reads librdkafka's statistics JSON; nil when it is not that JSON.
    public init?(json: String) {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let topics = root["topics"] as? [String: Any]
        else { return nil }
        var lag: [KafkaTopicPartition: Int64] = [:]
        for (topic, value) in topics {
            guard let partitions = (value as? [String: Any])?["partitions"] as? [String: Any] else { continue }
            for (id, entry) in partitions {
                // Partition -1 is librdkafka's internal UA partition; -1 lag means unknown.
                guard let partition = Int32(id), partition >= 0, let entry = entry as? [String: Any],
                    let consumerLag = (entry["consumer_lag"] as? NSNumber)?.int64Value, consumerLag >= 0
                else { continue }
                lag[KafkaTopicPartition(topic: topic, partition: partition)] = consumerLag
            }
        }
        self.lag = lag
    }
}
