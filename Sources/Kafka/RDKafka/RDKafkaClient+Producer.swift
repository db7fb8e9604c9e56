import CRdKafka

import struct Foundation.Date

extension RDKafkaClient {
    enum EnqueueResult {
        case enqueued
        case queueFull
        case failed(KafkaError)
    }

    /// Enqueues one record, stamped `timestamp` (nil: now). On `.enqueued` librdkafka owns
    /// `opaque` until its delivery report.
    func produce(
        topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader], timestamp: Date? = nil,
        opaque: UnsafeMutableRawPointer
    ) -> EnqueueResult {
        var headerList: OpaquePointer?
        if !headers.isEmpty {
            let list = rd_kafka_headers_new(headers.count)!
            for header in headers {
                if let value = header.value {
                    value.withUnsafeBytes { bytes in
                        // A NULL pointer would make an empty value a null one: it needs an address.
                        _ = rd_kafka_header_add(list, header.key, -1, bytes.baseAddress ?? UnsafeRawPointer(emptyPayload), bytes.count)
                    }
                } else {
                    _ = rd_kafka_header_add(list, header.key, -1, nil, 0)
                }
            }
            headerList = list
        }
        let error: OpaquePointer? = topic.withCString { topicName in
            Self.withOptionalBytes(key) { keyPointer, keyCount in
                Self.withOptionalBytes(value) { valuePointer, valueCount in
                    var fields = [rd_kafka_vu_t](repeating: rd_kafka_vu_t(), count: 8)
                    fields[0].vtype = RD_KAFKA_VTYPE_TOPIC
                    fields[0].u.cstr = topicName
                    fields[1].vtype = RD_KAFKA_VTYPE_PARTITION
                    fields[1].u.i32 = partition ?? -1  // RD_KAFKA_PARTITION_UA: let the partitioner choose
                    fields[2].vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    fields[2].u.i = RD_KAFKA_MSG_F_COPY
                    fields[3].vtype = RD_KAFKA_VTYPE_VALUE
                    fields[3].u.mem.ptr = valuePointer
                    fields[3].u.mem.size = valueCount
                    fields[4].vtype = RD_KAFKA_VTYPE_KEY
                    fields[4].u.mem.ptr = keyPointer
                    fields[4].u.mem.size = keyCount
                    fields[5].vtype = RD_KAFKA_VTYPE_OPAQUE
                    fields[5].u.ptr = opaque
                    var count = 6
                    if let headerList {
                        fields[count].vtype = RD_KAFKA_VTYPE_HEADERS
                        fields[count].u.headers = headerList
                        count += 1
                    }
                    if let timestamp {
                        fields[count].vtype = RD_KAFKA_VTYPE_TIMESTAMP
                        fields[count].u.i64 = Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
                        count += 1
                    }
                    return rd_kafka_produceva(handle, fields, count)
                }
            }
        }
        guard let error else { return .enqueued }
        if let headerList { rd_kafka_headers_destroy(headerList) }  // still ours: the produce failed
        let code = rd_kafka_error_code(error)
        if code == RD_KAFKA_RESP_ERR__QUEUE_FULL {
            rd_kafka_error_destroy(error)
            return .queueFull
        }
        return .failed(RDKafkaErrors.consume(error)!)
    }

    /// Blocks until every queued record was delivered or `timeoutMilliseconds` passed.
    func flush(timeoutMilliseconds: Int32) -> rd_kafka_resp_err_t {
        rd_kafka_flush(handle, timeoutMilliseconds)
    }

    /// Learns `topic`'s partitions and their leaders now, with a metadata request for it alone,
    /// so that the first record sent to it does not wait for them; blocks up to `timeout`.
    func prepare(topic: String, timeout: Duration) -> KafkaError? {
        guard let topicHandle = rd_kafka_topic_new(handle, topic, nil) else {
            return RDKafkaErrors.error(rd_kafka_last_error(), "cannot make a handle for topic \(topic)")
        }
        defer { rd_kafka_topic_destroy(topicHandle) }
        var pointer: UnsafePointer<rd_kafka_metadata>?
        let code = rd_kafka_metadata(handle, 0, topicHandle, &pointer, timeout.rdKafkaMilliseconds)
        if let pointer { rd_kafka_metadata_destroy(pointer) }
        guard RDKafkaErrors.isSuccess(code) else {
            return RDKafkaErrors.error(code, "metadata request for \(topic) failed: \(RDKafkaErrors.text(of: code.rawValue))")
        }
        return nil
    }

    /// Number of records queued or in flight.
    var outQueueLength: Int { Int(rd_kafka_outq_len(handle)) }

    /// Fails everything still queued or in flight: their sends throw `.purged` once the poll
    /// thread serves the reports.
    func purge() {
        rd_kafka_purge(handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
    }

    private static func withOptionalBytes<T>(
        _ bytes: [UInt8]?, _ body: (UnsafeMutableRawPointer?, Int) -> T
    ) -> T {
        guard let bytes else { return body(nil, 0) }
        return bytes.withUnsafeBytes { buffer in
            // librdkafka reads a NULL pointer as a null value: an empty one needs a real address.
            body(UnsafeMutableRawPointer(mutating: buffer.baseAddress) ?? emptyPayload, buffer.count)
        }
    }
}

/// A valid address for zero-length payloads, never read or written.
nonisolated(unsafe) private let emptyPayload = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
