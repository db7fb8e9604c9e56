import Foundation

/// A Kafka cluster in this process: librdkafka's mock cluster, speaking the real Kafka protocol
/// over TCP on 127.0.0.1, so any client (this module's, kcat, a JVM client) can talk to it.
///
/// Brokers listen on ephemeral ports. Given a fixed `port`, a forwarder on 127.0.0.1:`port`
/// carries bootstrap traffic to broker 1 and clients then follow the advertised brokers. Topics
/// are created with `createTopic` (the mock cluster has no CreateTopics request); producing to an
/// unknown topic auto-creates it. Fault hooks let tests take brokers down, add latency and inject
/// request errors. Everything stops at `shutdown()` or when the value is released.
///
/// Retention is small and fixed: librdkafka 2.0.2's mock partitions keep at most
/// `retainedBytesPerPartition` bytes and `retainedBatchesPerPartition` record batches, and drop
/// the oldest beyond that even if nobody consumed them. Keep unconsumed backlogs below that, or
/// use more partitions.
public final class EmbeddedKafka: Sendable {
    /// Bytes a mock partition keeps before it drops its oldest batches (5 MiB).
    public static let retainedBytesPerPartition = 5 * 1024 * 1024
    /// Record batches a mock partition keeps before it drops its oldest ones.
    public static let retainedBatchesPerPartition = 100_000

    /// Prints a cluster's log lines of `.critical` or worse to stderr and drops the rest: the line
    /// in which a broker that cannot bind its port names the error, before librdkafka aborts.
    public static let criticalLines: @Sendable (KafkaLogLevel, String) -> Void = { level, line in
        guard level >= .critical else { return }
        FileHandle.standardError.write(Data("%\(level.rawValue)|embedded kafka| \(line)\n".utf8))
    }

    private let cluster: RDKafkaMockCluster
    private let forwarder: TCPForwarder?
    /// Number of brokers, with ids 1 through `brokerCount`.
    public let brokerCount: Int
    /// What clients should use as `bootstrap.servers`.
    public let bootstrapServers: String

    /// Starts `brokers` brokers and creates `topics`.
    ///
    /// - Parameter port: a fixed bootstrap port on 127.0.0.1, or nil for the brokers' own ports.
    /// - Parameter logHandler: receives the cluster's log lines; nil prints them all to stderr,
    ///   the default only those of `criticalLines`.
    /// - Throws: `.embedded` naming the port when it cannot be bound, or the topic that failed.
    public init(
        brokers: Int = 1, port: Int? = nil, topics: [KafkaTopicSpec] = [],
        logHandler: (@Sendable (KafkaLogLevel, String) -> Void)? = EmbeddedKafka.criticalLines
    ) throws(KafkaError) {
        guard brokers >= 1 else { throw .invalidArgument(name: "brokers", value: "\(brokers)", reason: "need at least one broker") }
        cluster = try RDKafkaMockCluster(brokers: brokers, logHandler: logHandler)
        brokerCount = brokers
        if let port {
            let target = String(cluster.bootstrapServers.split(separator: ",")[0])
            let forwarder = try TCPForwarder(port: port, target: target)
            self.forwarder = forwarder
            bootstrapServers = "127.0.0.1:\(forwarder.port)"
        } else {
            forwarder = nil
            bootstrapServers = cluster.bootstrapServers
        }
        for topic in topics { try createTopic(topic) }
    }

    /// The brokers' own `host:port` list, whatever `bootstrapServers` is.
    public var brokerAddresses: String { cluster.bootstrapServers }

    /// A configuration for producers and admin clients of this cluster.
    public func configuration(_ properties: [String: String] = [:]) -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: bootstrapServers, properties: properties)
    }

    /// A configuration for consumers of this cluster, with a 6 s session timeout unless
    /// `properties` sets one.
    ///
    /// The mock cluster waits `session.timeout.ms` minus one second for members to rejoin a
    /// rebalance (Kafka itself waits for the rebalance timeout), and every new member rejoins once
    /// after its first metadata; with librdkafka's 45 s default a join would take 44 s.
    public func consumerConfiguration(_ properties: [String: String] = [:]) -> KafkaConfiguration {
        configuration(properties).withDefaults(Self.consumerDefaults)
    }

    /// Consumer settings that keep the mock cluster's rebalances short. With librdkafka's 45 s
    /// session timeout, a member joining a group that has settled waits 44 s for the mock
    /// cluster's next assignment (it does not end the wait once every member rejoined, as Kafka
    /// does), and a cooperative hand-over takes two such rounds.
    public static let consumerDefaults = ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]

    /// `consumerDefaults` as `key=value` assignments sorted by key, as `-X` takes them: for worker
    /// processes started against this cluster, above all several in one group.
    public static let consumerAssignments = consumerDefaults.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }

    /// Creates a topic; replication is capped at the number of brokers. Throws `.embedded` naming
    /// the topic when the cluster has it already.
    public func createTopic(_ spec: KafkaTopicSpec) throws(KafkaError) {
        guard try createTopicIfAbsent(spec) else {
            throw .embedded(operation: "create topic \(spec.name)", reason: "TOPIC_ALREADY_EXISTS: the cluster has it already")
        }
    }

    /// Creates a topic unless the cluster has it already (a producer asking for an unknown topic's
    /// metadata auto-creates it here, with the cluster's default partitions): true when it did.
    @discardableResult
    public func createTopicIfAbsent(_ spec: KafkaTopicSpec) throws(KafkaError) -> Bool {
        try cluster.createTopic(spec.name, partitions: spec.partitions, replicationFactor: min(spec.replicationFactor, brokerCount))
    }

    /// Creates a topic with `partitions` partitions.
    public func createTopic(_ name: String, partitions: Int = 1) throws(KafkaError) {
        try createTopic(KafkaTopicSpec(name: name, partitions: partitions))
    }

    /// Disconnects broker `id` and refuses new connections until `setBrokerUp`. Waits for a turn
    /// of `ForkTurns.shared`: the cut binds the broker's port again, which a child forked at that
    /// moment would still hold.
    public func setBrokerDown(_ id: Int32) async throws(KafkaError) {
        try await ForkTurns.shared.taking { () throws(KafkaError) in try cluster.setBroker(id, up: false) }
    }

    /// Lets broker `id` accept connections again.
    public func setBrokerUp(_ id: Int32) throws(KafkaError) { try cluster.setBroker(id, up: true) }

    /// Makes broker `id` answer every request `latency` late.
    public func setRoundTripTime(broker id: Int32, _ latency: Duration) throws(KafkaError) {
        try cluster.setRoundTripTime(broker: id, milliseconds: Int(latency.rdKafkaMilliseconds))
    }

    /// Moves the leadership of one partition to broker `id`.
    public func setPartitionLeader(topic: String, partition: Int32, broker id: Int32) throws(KafkaError) {
        try cluster.setPartitionLeader(topic: topic, partition: partition, broker: id)
    }

    /// Answers the next requests of type `api` with `errors`, one per request, in order.
    public func injectRequestErrors(_ api: KafkaAPIKey, _ errors: [KafkaErrorCode]) {
        cluster.pushRequestErrors(api: api.rawValue, errors: errors)
    }

    /// Drops request errors not yet returned for `api`.
    public func clearRequestErrors(_ api: KafkaAPIKey) { cluster.clearRequestErrors(api: api.rawValue) }

    /// Makes every request about `topic` fail with `error` (nil clears it).
    public func setTopicError(_ topic: String, _ error: KafkaErrorCode?) { cluster.setTopicError(topic: topic, error: error) }

    /// Stops the bootstrap forwarder; the brokers stop when this value is released.
    public func shutdown() { forwarder?.stop() }
}
