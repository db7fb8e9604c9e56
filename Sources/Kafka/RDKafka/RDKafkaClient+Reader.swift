import CRdKafka

import struct Foundation.Date

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

extension RDKafkaClient {
    /// The leaders' answers to "the first offset stamped at or after this time" (milliseconds
    /// since 1970, per partition): an offset, -1 for none, or the partition's error. Blocks.
    func offsetsForTimes(
        _ times: [KafkaTopicPartition: Int64], timeout: Duration
    ) -> Result<[KafkaTopicPartition: (offset: Int64, error: KafkaErrorCode?)], KafkaError> {
        guard !times.isEmpty else { return .success([:]) }
        return RDKafkaTopicPartitionList.with(Array(times.keys), offsets: times) { list in
            let code = rd_kafka_offsets_for_times(handle, list, timeout.rdKafkaMilliseconds)
            guard RDKafkaErrors.isSuccess(code) else {
                return .failure(RDKafkaErrors.error(code, "offsets for times of \(times.count) partition(s): \(RDKafkaErrors.text(of: code.rawValue))"))
            }
            var answers: [KafkaTopicPartition: (offset: Int64, error: KafkaErrorCode?)] = [:]
            for element in RDKafkaTopicPartitionList.elements(list) {
                answers[element.partition] = (
                    element.offset, RDKafkaErrors.isSuccess(element.error) ? nil : KafkaErrorCode(rawValue: element.error.rawValue)
                )
            }
            return .success(answers)
        }
    }

    /// Reads, per partition, the first record at or after the given offset and before its end
    /// (`ends`): its offset and timestamp, or nil when there is none before the end (only
    /// transaction markers). Reassigns this consumer to exactly those offsets. Blocks up to
    /// `timeout`.
    func firstRecords(
        at probes: [KafkaTopicPartition: Int64], ends: [KafkaTopicPartition: Int64], timeout: Duration
    ) -> Result<[KafkaTopicPartition: (offset: Int64, timestamp: Date?)?], KafkaError> {
        do throws(KafkaError) { try assign(probes) } catch { return .failure(error) }
        var answers: [KafkaTopicPartition: (offset: Int64, timestamp: Date?)?] = [:]
        let deadline = ContinuousClock.now + timeout
        while answers.count < probes.count {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                let waiting = probes.keys.filter { answers[$0] == nil }.sorted().map(\.description).joined(separator: ", ")
                return .failure(.timedOut(operation: "reading one record of \(waiting)", timeout: timeout))
            }
            switch pollConsumer(timeoutMilliseconds: min(100, max(1, remaining.rdKafkaMilliseconds))) {
            case .record(let record):
                // The assignment starts each partition afresh: anything below the probe, or past
                // the end, is not the answer.
                let partition = record.topicPartition
                guard let probe = probes[partition], answers.index(forKey: partition) == nil, record.offset >= probe else { continue }
                answers[partition] = record.offset < (ends[partition] ?? .max) ? .some((record.offset, record.timestamp)) : .some(nil)
            case .endOfPartition(let partition, let next):
                // At the probe itself too: under read_committed the end reported is the last
                // stable offset, which an open transaction holds at the probe.
                guard let probe = probes[partition], answers.index(forKey: partition) == nil, next >= probe else { continue }
                answers[partition] = .some(nil)
            case .error(let error, let fatal):
                if fatal { return .failure(error) }
                context.log(.warning, "reader: \(error)")
            case .empty:
                continue
            }
        }
        return .success(answers)
    }
}
