import Foundation

/// What librdkafka's statistics (`statistics.interval.ms`) say of a consumer's partitions, typed:
/// the consumer lag of each partition it reports (the last stable offset, or the high watermark,
/// less the offset stored for commit, or else the committed one), for partitions where librdkafka knows it. Where the group never
/// committed (librdkafka's lag is -1), the lag is the partition's whole backlog, the last stable
/// offset (or high watermark) less the low watermark, as a group that starts from the earliest
/// offset reads it; a partition whose watermarks are not known yet is left out.
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
                // Partition -1 is librdkafka's internal UA partition.
                guard let partition = Int32(id), partition >= 0, let entry = entry as? [String: Any],
                    let partitionLag = Self.lag(of: entry)
                else { continue }
                lag[KafkaTopicPartition(topic: topic, partition: partition)] = partitionLag
            }
        }
        self.lag = lag
    }

    /// The lag of one partition's statistics: librdkafka's `consumer_lag_stored` when it knows
    /// it (the records past the offset stored for commit: work this consumer has not finished,
    /// without counting finished work that waits for the next commit), else its `consumer_lag`
    /// (past the committed offset); when the group has no committed offset (`committed_offset` below 0, librdkafka's
    /// -1001), `ls_offset` (or `hi_offset` without it) less `lo_offset`; nil when neither is known.
    private static func lag(of entry: [String: Any]) -> Int64? {
        func offset(_ key: String) -> Int64? {
            (entry[key] as? NSNumber).map(\.int64Value).flatMap { $0 >= 0 ? $0 : nil }
        }
        if let storedLag = offset("consumer_lag_stored") { return storedLag }
        if let consumerLag = offset("consumer_lag") { return consumerLag }
        guard offset("committed_offset") == nil, let low = offset("lo_offset"),
            let end = offset("ls_offset") ?? offset("hi_offset")
        else { return nil }
        return max(0, end - low)
    }
}
