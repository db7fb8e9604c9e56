import CRdKafka

extension RDKafkaClient {
    /// Assigns `starts` (partition → first offset to read) to this consumer, outside any group.
    func assign(_ starts: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        let error = RDKafkaTopicPartitionList.with(Array(starts.keys), offsets: starts) { list -> KafkaError? in
            let code = rd_kafka_assign(handle, list)
            return RDKafkaErrors.isSuccess(code)
                ? nil : RDKafkaErrors.error(code, "assign \(starts.count) partitions: \(RDKafkaErrors.text(of: code.rawValue))")
        }
        if let error { throw error }
    }

    /// The low and high watermarks of one partition, asked of its leader; blocks.
    func watermarks(_ partition: KafkaTopicPartition, timeout: Duration) -> Result<(low: Int64, high: Int64), KafkaError> {
        var low: Int64 = 0
        var high: Int64 = 0
        let code = rd_kafka_query_watermark_offsets(handle, partition.topic, partition.partition, &low, &high, timeout.rdKafkaMilliseconds)
        guard RDKafkaErrors.isSuccess(code) else {
            return .failure(RDKafkaErrors.error(code, "watermarks of \(partition): \(RDKafkaErrors.text(of: code.rawValue))"))
        }
        return .success((low, high))
    }
}
