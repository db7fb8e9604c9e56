import CRdKafka

/// Conversions between `[KafkaTopicPartition]` and librdkafka's topic-partition lists.
enum RDKafkaTopicPartitionList {
    /// A new list the caller must destroy with `rd_kafka_topic_partition_list_destroy`.
    static func make(
        _ partitions: [KafkaTopicPartition], offsets: [KafkaTopicPartition: Int64] = [:]
    ) -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t> {
        let list = rd_kafka_topic_partition_list_new(Int32(max(partitions.count, 1)))!
        for tp in partitions {
            let element = rd_kafka_topic_partition_list_add(list, tp.topic, tp.partition)!
            if let offset = offsets[tp] { element.pointee.offset = offset }
        }
        return list
    }

    /// Calls `body` with a temporary list, destroyed afterwards.
    static func with<T>(
        _ partitions: [KafkaTopicPartition], offsets: [KafkaTopicPartition: Int64] = [:],
        _ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws -> T
    ) rethrows -> T {
        let list = make(partitions, offsets: offsets)
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return try body(list)
    }

    static func elements(
        _ list: UnsafePointer<rd_kafka_topic_partition_list_t>?
    ) -> [(partition: KafkaTopicPartition, offset: Int64, error: rd_kafka_resp_err_t)] {
        guard let list else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return (
                KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition),
                element.offset, element.err
            )
        }
    }

    static func partitions(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [KafkaTopicPartition] {
        elements(list).map(\.partition)
    }

    /// The first per-partition error in a list, as a `KafkaError` naming the partition.
    static func firstError(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> KafkaError? {
        for element in elements(list) where !RDKafkaErrors.isSuccess(element.error) {
            return RDKafkaErrors.error(
                element.error, "\(element.partition): \(RDKafkaErrors.text(of: element.error.rawValue))")
        }
        return nil
    }
}
