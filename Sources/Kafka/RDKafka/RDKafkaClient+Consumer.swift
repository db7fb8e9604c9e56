import CRdKafka
import Foundation

extension RDKafkaClient {
    enum PollResult {
        case record(KafkaRecord)
        case error(KafkaError, fatal: Bool)
        /// The consumer reached the end of a partition (with `enable.partition.eof`): `next` is
        /// the offset the next record will have, past any transaction markers.
        case endOfPartition(KafkaTopicPartition, next: Int64)
        case empty
    }

    func subscribe(_ topics: [String]) throws(KafkaError) {
        let list = rd_kafka_topic_partition_list_new(Int32(topics.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for topic in topics {
            rd_kafka_topic_partition_list_add(list, topic, -1)
        }
        subscribed.store(true, ordering: .releasing)
        let code = rd_kafka_subscribe(handle, list)
        if !RDKafkaErrors.isSuccess(code) {
            throw RDKafkaErrors.error(code, "subscribe to \(topics): \(RDKafkaErrors.text(of: code.rawValue))")
        }
    }

    /// Polls once, waiting up to `timeoutMilliseconds` (0: not at all); serves rebalance
    /// callbacks along the way.
    func pollConsumer(timeoutMilliseconds: Int32 = 0) -> PollResult {
        guard let message = rd_kafka_consumer_poll(handle, timeoutMilliseconds) else { return .empty }
        defer { rd_kafka_message_destroy(message) }
        let err = message.pointee.err
        if err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
            let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            return .endOfPartition(KafkaTopicPartition(topic: topic, partition: message.pointee.partition), next: message.pointee.offset)
        }
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
        let timestamp =
            timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
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

    /// Commits the stored offsets and waits up to `timeoutMilliseconds` for the coordinator's
    /// answer. Nothing stored is success. Blocks.
    ///
    /// `rd_kafka_commit` waits without limit while the coordinator is unreachable, which would
    /// stop a worker from ever exiting after its cluster went away; the answer is therefore
    /// awaited on a private queue with a deadline. A commit that times out may still reach the
    /// coordinator later; that is harmless, offsets only move forward.
    func commitStored(timeoutMilliseconds: Int32) -> KafkaError? {
        guard let queue = rd_kafka_queue_new(handle) else { return RDKafkaErrors.error(RD_KAFKA_RESP_ERR__FAIL, "commit: no queue") }
        defer { rd_kafka_queue_destroy(queue) }
        let sent = rd_kafka_commit_queue(handle, nil, queue, nil, nil)
        if sent == RD_KAFKA_RESP_ERR__NO_OFFSET { return nil }
        if !RDKafkaErrors.isSuccess(sent) { return Self.commitError(sent) }
        guard let event = rd_kafka_queue_poll(queue, timeoutMilliseconds) else {
            return .timedOut(operation: "commit (coordinator unreachable)", timeout: .milliseconds(timeoutMilliseconds))
        }
        defer { rd_kafka_event_destroy(event) }
        let code = rd_kafka_event_error(event)
        if RDKafkaErrors.isSuccess(code) || code == RD_KAFKA_RESP_ERR__NO_OFFSET { return nil }
        return Self.commitError(code)
    }

    private static func commitError(_ code: rd_kafka_resp_err_t) -> KafkaError {
        RDKafkaErrors.error(code, "commit failed: \(RDKafkaErrors.text(of: code.rawValue))")
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

    /// Serves the consumer queue until the rebalance callback has assigned partitions (possibly
    /// none) for the first time, or `timeoutMilliseconds` passed; true when it has. Blocks, woken
    /// by what librdkafka queues: the callback ends the poll at once (`rd_kafka_queue_yield`),
    /// also when another thread's poll served it.
    ///
    /// For `destroyMayAbort`: once the member had an assignment, destroying it is safe on
    /// librdkafka before 2.3.0 too. Only a group's answer can bring it, so this has to be done
    /// before the close: a closing member ignores the assignment that completes its join.
    /// Records polled meanwhile are dropped; their offsets are never stored, so they are
    /// delivered again. Revocations are carried out at once, as while closing.
    func awaitFirstAssignment(timeoutMilliseconds: Int32) -> Bool {
        context.events.withLock { $0.closing = true }
        context.yieldOnAssignment.store(true, ordering: .releasing)
        defer { context.yieldOnAssignment.store(false, ordering: .releasing) }
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while !context.assignmentServed.load(ordering: .acquiring) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            if let message = rd_kafka_consumer_poll(handle, max(1, remaining.rdKafkaMilliseconds)) { rd_kafka_message_destroy(message) }
        }
        return true
    }

    /// Leaves the group, serving the final revoke in the rebalance callback, for up to
    /// `timeoutMilliseconds`. Blocks.
    ///
    /// `rd_kafka_consumer_close` waits without limit for an unreachable coordinator; closing on
    /// a private queue lets the wait end. When it does, `rd_kafka_destroy` skips the close (see
    /// deinit) and the coordinator drops the member after `session.timeout.ms`.
    func closeConsumer(timeoutMilliseconds: Int32) -> KafkaError? {
        closeAttempted.withLock { $0 = true }
        return Self.closeConsumer(handle, context: context, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// `closeConsumer` of a handle whose client is going away (see deinit).
    static func closeConsumer(_ handle: OpaquePointer, context: RDKafkaContext, timeoutMilliseconds: Int32) -> KafkaError? {
        context.events.withLock { $0.closing = true }
        guard let queue = rd_kafka_queue_new(handle) else { return RDKafkaErrors.error(RD_KAFKA_RESP_ERR__FAIL, "close: no queue") }
        defer { rd_kafka_queue_destroy(queue) }
        if let error = RDKafkaErrors.consume(rd_kafka_consumer_close_queue(handle, queue)) { return error }
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while rd_kafka_consumer_closed(handle) == 0 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                return .timedOut(operation: "leaving the group (coordinator unreachable)", timeout: .milliseconds(timeoutMilliseconds))
            }
            // The close forwards the consumer queue here, records fetched and not yet polled
            // included: served as a consumer poll serves it (rebalance callbacks run, records
            // are returned and dropped, never stored), not by `rd_kafka_queue_poll_callback`,
            // which asserts on a record (rdkafka_queue.c: `res != RD_KAFKA_OP_RES_PASS`). Ends at
            // once when the close is done (librdkafka posts a TERMINATE op that yields).
            if let message = rd_kafka_consume_queue(queue, max(1, remaining.rdKafkaMilliseconds)) { rd_kafka_message_destroy(message) }
        }
        return nil
    }
}
