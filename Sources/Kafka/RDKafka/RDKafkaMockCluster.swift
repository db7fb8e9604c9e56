import CRdKafka

/// librdkafka's mock cluster: real Kafka protocol on loopback, in this process.
final class RDKafkaMockCluster: @unchecked Sendable {
    /// The client whose handle hosts the cluster; it must outlive `cluster`.
    private let host: RDKafkaClient
    private let cluster: OpaquePointer

    init(brokers: Int, logHandler: (@Sendable (KafkaLogLevel, String) -> Void)?) throws(KafkaError) {
        var configuration = KafkaConfiguration()
        configuration.logHandler = logHandler
        host = try RDKafkaClient(kind: .producer, configuration: configuration)
        guard let cluster = rd_kafka_mock_cluster_new(host.handle, Int32(clamping: brokers)) else {
            throw .embedded(operation: "start", reason: "librdkafka could not start a mock cluster of \(brokers) brokers")
        }
        self.cluster = cluster
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
    }

    /// `host:port` of every broker, comma-separated.
    var bootstrapServers: String { String(cString: rd_kafka_mock_cluster_bootstraps(cluster)) }

    /// Creates topic `name`: false, and nothing done, when the cluster has it already.
    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) throws(KafkaError) -> Bool {
        let code = rd_kafka_mock_topic_create(cluster, name, Int32(clamping: partitions), Int32(clamping: replicationFactor))
        if code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS { return false }
        try check(code, "create topic \(name)")
        return true
    }

    func setBroker(_ id: Int32, up: Bool) throws(KafkaError) {
        let code = up ? rd_kafka_mock_broker_set_up(cluster, id) : rd_kafka_mock_broker_set_down(cluster, id)
        try check(code, "set broker \(id) \(up ? "up" : "down")")
    }

    func setRoundTripTime(broker: Int32, milliseconds: Int) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_rtt(cluster, broker, Int32(clamping: milliseconds)), "set rtt of broker \(broker)")
    }

    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_partition_set_leader(cluster, topic, partition, broker), "set leader of \(topic)[\(partition)]")
    }

    func pushRequestErrors(api: Int16, errors: [KafkaErrorCode]) {
        let codes = errors.map { rd_kafka_resp_err_t(rawValue: $0.rawValue) }
        codes.withUnsafeBufferPointer { buffer in
            rd_kafka_mock_push_request_errors_array(cluster, api, buffer.count, buffer.baseAddress)
        }
    }

    func clearRequestErrors(api: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, api)
    }

    func setTopicError(topic: String, error: KafkaErrorCode?) {
        rd_kafka_mock_topic_set_error(cluster, topic, rd_kafka_resp_err_t(rawValue: error?.rawValue ?? 0))
    }

    private func check(_ code: rd_kafka_resp_err_t, _ operation: String) throws(KafkaError) {
        if !RDKafkaErrors.isSuccess(code) {
            throw .embedded(operation: operation, reason: "\(RDKafkaErrors.name(of: code.rawValue)): \(RDKafkaErrors.text(of: code.rawValue))")
        }
    }
}
