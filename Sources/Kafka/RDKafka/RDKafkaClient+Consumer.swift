import CRdKafka
import Foundation

extension RDKafkaClient {
    enum PollResult {
        case record(KafkaRecord)
        case error(KafkaError, fatal: Bool)
        case empty
    }

    func subscribe(_ topics: [String]) throws(KafkaError) {
        let list = rd_kafka_topic_partition_list_new(Int32(topics.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for topic in topics {
            rd_kafka_topic_partition_list_add(list, topic, -1)
        }
        let code = rd_kafka_subscribe(handle, list)
        if !RDKafkaErrors.isSuccess(code) {
            throw RDKafkaErrors.error(code, "subscribe to \(topics): \(RDKafkaErrors.text(of: code.rawValue))")
        }
    }

    /// Polls once without blocking; serves rebalance callbacks along the way.
    func pollConsumer() -> PollResult {
        guard let message = rd_kafka_consumer_poll(handle, 0) else { return .empty }
        defer { rd_kafka_message_destroy(message) }
        let err = message.pointee.err
        if err == RD_KAFKA_RESP_ERR__PARTITION_EOF { return .empty }
        if !RDKafkaErrors.isSuccess(err) {
            let text = rd_kafka_message_errstr(message).map { String(cString: $0) } ?? ""
            let fatal = err == RD_KAFKA_RESP_ERR__FATAL
            return .error(fatal ? (fatalClientError() ?? RDKafkaErrors.error(err, text)) : RDKafkaErrors.error(err, text), fatal: fatal)
        }
        return .record(Self.record(from: message))
    }

    private static func record(from message: UnsafeMutablePointer<rd_kafka_message_t>) -> KafkaRecord {
        let m = message.pointee
        let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let value = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: m.len)) }
        let key = m.key.map { Array(UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        var headers: [KafkaHeader] = []
        var headerList: OpaquePointer?
        if RDKafkaErrors.isSuccess(rd_kafka_message_headers(message, &headerList)), let headerList {
            var index = 0
            var name: UnsafePointer<CChar>?
            var valuePointer: UnsafeRawPointer?
            var size = 0
            while RDKafkaErrors.isSuccess(rd_kafka_header_get_all(headerList, index, &name, &valuePointer, &size)) {
                let bytes = valuePointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
                headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
                index += 1
            }
        }
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &timestampType)
        let timestamp = timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
            ? nil : Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return KafkaRecord(
            topic: topic, partition: m.partition, offset: m.offset, key: key, value: value,
            headers: headers, timestamp: timestamp)
    }

    /// Stores `offsets` (the next offset to read, per partition) for the next commit.
    func storeOffsets(_ offsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let error = RDKafkaTopicPartitionList.with(Array(offsets.keys), offsets: offsets) { list -> KafkaError? in
            let code = rd_kafka_offsets_store(handle, list)
            return RDKafkaTopicPartitionList.firstError(list)
                ?? (RDKafkaErrors.isSuccess(code) ? nil : RDKafkaErrors.error(code))
        }
        if let error { throw error }
    }

    /// Commits the stored offsets and waits for the broker's answer. Nothing stored is success.
    func commitStoredSync() -> KafkaError? {
        let code = rd_kafka_commit(handle, nil, 0)
        if RDKafkaErrors.isSuccess(code) || code == RD_KAFKA_RESP_ERR__NO_OFFSET { return nil }
        return RDKafkaErrors.error(code, "commit failed: \(RDKafkaErrors.text(of: code.rawValue))")
    }

    func committed(_ partitions: [KafkaTopicPartition], timeoutMilliseconds: Int32) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let result = RDKafkaTopicPartitionList.with(partitions) { list -> Result<[KafkaTopicPartition: Int64], KafkaError> in
            let code = rd_kafka_committed(handle, list, timeoutMilliseconds)
            if !RDKafkaErrors.isSuccess(code) { return .failure(RDKafkaErrors.error(code)) }
            var offsets: [KafkaTopicPartition: Int64] = [:]
            for element in RDKafkaTopicPartitionList.elements(list) where element.offset >= 0 {
                offsets[element.partition] = element.offset
            }
            return .success(offsets)
        }
        return try result.get()
    }

    func pause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try changePause(partitions, pause: true)
    }

    func resume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try changePause(partitions, pause: false)
    }

    private func changePause(_ partitions: [KafkaTopicPartition], pause: Bool) throws(KafkaError) {
        guard !partitions.isEmpty else { return }
        let error = RDKafkaTopicPartitionList.with(partitions) { list -> KafkaError? in
            let code = pause ? rd_kafka_pause_partitions(handle, list) : rd_kafka_resume_partitions(handle, list)
            return RDKafkaTopicPartitionList.firstError(list)
                ?? (RDKafkaErrors.isSuccess(code) ? nil : RDKafkaErrors.error(code))
        }
        if let error { throw error }
    }

    func assignment() throws(KafkaError) -> [KafkaTopicPartition] {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        let code = rd_kafka_assignment(handle, &list)
        defer { if let list { rd_kafka_topic_partition_list_destroy(list) } }
        if !RDKafkaErrors.isSuccess(code) { throw RDKafkaErrors.error(code) }
        return RDKafkaTopicPartitionList.partitions(list)
    }

    func unassign(_ partitions: [KafkaTopicPartition], cooperative: Bool) {
        RDKafkaRebalancer.unassign(handle, partitions, cooperative: cooperative, context: context)
    }

    /// Leaves the group; serves the final revoke in the rebalance callback. Blocks.
    func closeConsumer() -> KafkaError? {
        context.rebalance.withLock { $0.closing = true }
        let code = rd_kafka_consumer_close(handle)
        return RDKafkaErrors.isSuccess(code) ? nil : RDKafkaErrors.error(code)
    }
}
