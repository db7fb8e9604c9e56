import Kafka
import Metrics
import Pipeline
import Synchronization

/// `kafka_consumergroup_lag{consumergroup, topic, partition}`, in the shape kafka_exporter uses,
/// for the partitions the workers own at scrape time: a partition that moved away loses its series
/// (librdkafka goes on reporting revoked partitions; their lag is someone else's now).
final class LagGauges: Sendable {
    private let gauges = Mutex<[String: Gauge]>([:])

    /// Reads each worker's lag and sets the gauges; drops the series of partitions no longer owned.
    func update(_ workers: [PipelineWorker]) async {
        var current: [String: (group: String, partition: KafkaTopicPartition, lag: Int64)] = [:]
        for worker in workers {
            for (partition, lag) in await worker.consumerLag() {
                current["\(worker.configuration.group)|\(partition)"] = (worker.configuration.group, partition, lag)
            }
        }
        let stale: [Gauge] = gauges.withLock { gauges in
            for (key, entry) in current {
                let gauge =
                    gauges[key]
                    ?? Gauge(
                        label: MetricName.consumerGroupLag.rawValue,
                        dimensions: [("consumergroup", entry.group), ("topic", entry.partition.topic), ("partition", "\(entry.partition.partition)")])
                gauges[key] = gauge
                gauge.record(entry.lag)
            }
            let gone = gauges.keys.filter { current[$0] == nil }
            return gone.compactMap { gauges.removeValue(forKey: $0) }
        }
        for gauge in stale { gauge.destroy() }
    }
}
