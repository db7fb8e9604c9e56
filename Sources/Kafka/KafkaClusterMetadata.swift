/// Brokers and topics as a cluster describes itself (Kafka's Metadata response).
public struct KafkaClusterMetadata: Sendable, Hashable {
    /// One broker.
    public struct Broker: Sendable, Hashable {
        /// The broker id.
        public var id: Int32
        /// The host it advertises.
        public var host: String
        /// The port it advertises.
        public var port: Int
    }

    /// One partition of a topic.
    public struct Partition: Sendable, Hashable {
        /// Partition number.
        public var id: Int32
        /// Id of the leader broker, -1 when there is none.
        public var leader: Int32
        /// Ids of the replica brokers.
        public var replicas: [Int32]
    }

    /// One topic.
    public struct Topic: Sendable, Hashable {
        /// Topic name.
        public var name: String
        /// Partitions, by id.
        public var partitions: [Partition]
        /// The broker's error for this topic (e.g. unknown topic), if any.
        public var error: KafkaErrorCode?
    }

    /// All brokers, by id.
    public var brokers: [Broker]
    /// All topics (internal ones included), by name.
    public var topics: [Topic]

    /// The topic called `name`, if the cluster has it.
    public func topic(_ name: String) -> Topic? { topics.first { $0.name == name && $0.error == nil } }
}
