import CRdKafka

extension RDKafkaClient {
    /// Creates topics with the CreateTopics admin request; blocks. An existing topic is success.
    func createTopics(_ specs: [KafkaTopicSpec], timeout: Duration) -> KafkaError? {
        let milliseconds = timeout.rdKafkaMilliseconds
        var errstr = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
        for spec in specs {
            guard let topic = rd_kafka_NewTopic_new(spec.name, Int32(clamping: spec.partitions), Int32(clamping: spec.replicationFactor), &errstr, errstr.count)
            else {
                return .invalidArgument(name: "topic", value: spec.name, reason: Self.text(errstr))
            }
            newTopics.append(topic)
            for (key, value) in spec.configs.sorted(by: { $0.key < $1.key }) {
                let code = rd_kafka_NewTopic_set_config(topic, key, value)
                if !RDKafkaErrors.isSuccess(code) {
                    return .invalidConfiguration(property: key, value: value, reason: "topic config for \(spec.name) refused")
                }
            }
        }
        let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, milliseconds, &errstr, errstr.count)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, milliseconds, &errstr, errstr.count)
        let queue = rd_kafka_queue_new(handle)
        defer { rd_kafka_queue_destroy(queue) }
        newTopics.withUnsafeMutableBufferPointer { buffer in
            rd_kafka_CreateTopics(handle, buffer.baseAddress, buffer.count, options, queue)
        }
        guard let event = rd_kafka_queue_poll(queue, milliseconds.addingReportingOverflow(2_000).overflow ? .max : milliseconds + 2_000) else {
            return .timedOut(operation: "create topics \(specs.map(\.name))", timeout: timeout)
        }
        defer { rd_kafka_event_destroy(event) }
        let code = rd_kafka_event_error(event)
        if !RDKafkaErrors.isSuccess(code) {
            return RDKafkaErrors.error(code, "create topics \(specs.map(\.name)): \(String(cString: rd_kafka_event_error_string(event)))")
        }
        var count = 0
        guard let result = rd_kafka_event_CreateTopics_result(event),
            let topics = rd_kafka_CreateTopics_result_topics(result, &count)
        else { return nil }
        for index in 0..<count {
            let topic = topics[index]
            let code = rd_kafka_topic_result_error(topic)
            if RDKafkaErrors.isSuccess(code) || code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS { continue }
            let name = String(cString: rd_kafka_topic_result_name(topic))
            let message = rd_kafka_topic_result_error_string(topic).map { String(cString: $0) } ?? ""
            return RDKafkaErrors.error(code, "create topic \(name): \(message)")
        }
        return nil
    }

    /// The cluster's metadata for all topics; blocks.
    ///
    /// A request that failed without an answer (it timed out, the connection failed) while the
    /// cluster refused this client (`KafkaErrorCode.refusesTheClient`, which librdkafka reports
    /// only to the error callback) fails with that refusal: the cause, not the timeout.
    ///
    /// A request that found no broker to ask, or no answer yet, is not the end: it is asked in
    /// slices that start at `metadataFirstSlice` and double, serving the error callback between
    /// them, until an answer, a refusal, or `timeout`. (librdkafka blocks a request for its whole
    /// timeout while no broker is up, and a TLS handshake's refusal reaches the error callback
    /// only when its queue is served: one request for the whole timeout would see the refusal
    /// only at the end.)
    func metadata(timeout: Duration) -> Result<KafkaClusterMetadata, KafkaError> {
        var pointer: UnsafePointer<rd_kafka_metadata>?
        let deadline = ContinuousClock.now + timeout
        var slice = Self.metadataFirstSlice
        var code: rd_kafka_resp_err_t
        repeat {
            let attempt = min(slice, max(.milliseconds(1), deadline - ContinuousClock.now))
            code = rd_kafka_metadata(handle, 1, nil, &pointer, attempt.rdKafkaMilliseconds)
            guard pointer == nil, code == RD_KAFKA_RESP_ERR__TRANSPORT || code == RD_KAFKA_RESP_ERR__TIMED_OUT else { break }
            serveErrors()
            if context.lastRefusal.withLock({ $0 }) != nil { break }
            slice = slice * 2
        } while ContinuousClock.now < deadline
        guard RDKafkaErrors.isSuccess(code), let pointer else {
            serveErrors()
            if let refusal = context.lastRefusal.withLock({ $0 }), case .broker(let cause, let reason) = refusal {
                return .failure(.broker(code: cause, message: "metadata request failed (\(RDKafkaErrors.text(of: code.rawValue))): \(reason)"))
            }
            return .failure(RDKafkaErrors.error(code, "metadata request failed: \(RDKafkaErrors.text(of: code.rawValue))"))
        }
        defer { rd_kafka_metadata_destroy(pointer) }
        // The cluster answered: a refusal noted before no longer explains a later failure.
        context.lastRefusal.withLock { $0 = nil }
        let m = pointer.pointee
        let brokers = (0..<Int(m.broker_cnt)).map { index in
            let b = m.brokers[index]
            return KafkaClusterMetadata.Broker(id: b.id, host: String(cString: b.host), port: Int(b.port))
        }
        let topics = (0..<Int(m.topic_cnt)).map { index in
            let t = m.topics[index]
            let partitions = (0..<Int(t.partition_cnt)).map { p in
                let partition = t.partitions[p]
                return KafkaClusterMetadata.Partition(
                    id: partition.id, leader: partition.leader,
                    replicas: (0..<Int(partition.replica_cnt)).map { partition.replicas[$0] })
            }
            return KafkaClusterMetadata.Topic(
                name: String(cString: t.topic), partitions: partitions.sorted { $0.id < $1.id },
                error: RDKafkaErrors.isSuccess(t.err) ? nil : KafkaErrorCode(rawValue: t.err.rawValue))
        }
        return .success(KafkaClusterMetadata(brokers: brokers.sorted { $0.id < $1.id }, topics: topics.sorted { $0.name < $1.name }))
    }

    /// The first slice of a metadata request's timeout: short, so that a refusal while connecting
    /// is seen soon; doubled after each slice, so that a slow cluster's answer still fits.
    static let metadataFirstSlice: Duration = .milliseconds(250)

    /// Serves the errors librdkafka reported meanwhile, so that the error callback has seen
    /// them: a producer's (or admin client's) main queue; a consumer's queue, to which the main
    /// queue is forwarded, only while it reads nothing (neither subscribed nor assigned: this is
    /// called by `metadata`, which a topic reader asks before it assigns), so no record is lost.
    private func serveErrors() {
        switch kind {
        case .producer: serveMainQueue()
        case .consumer:
            guard !subscribed.load(ordering: .acquiring) else { return }
            var partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
            guard RDKafkaErrors.isSuccess(rd_kafka_assignment(handle, &partitions)), let partitions else { return }
            let assigned = partitions.pointee.cnt
            rd_kafka_topic_partition_list_destroy(partitions)
            guard assigned == 0, let message = rd_kafka_consumer_poll(handle, 0) else { return }
            // librdkafka hands a consumer's errors out as messages, not to the error callback:
            // noted as the callback's would be.
            if !RDKafkaErrors.isSuccess(message.pointee.err) {
                context.noteError(
                    KafkaErrorCode(rawValue: message.pointee.err.rawValue), rd_kafka_message_errstr(message).map { String(cString: $0) } ?? "")
            }
            rd_kafka_message_destroy(message)
        }
    }

    /// The text librdkafka wrote into an error buffer.
    static func text(_ errstr: [CChar]) -> String {
        String(decoding: errstr.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }
}
