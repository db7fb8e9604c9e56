/// Topic administration for a Kafka cluster.
///
/// `createTopics` uses the CreateTopics request of real clusters; librdkafka's mock cluster does
/// not implement it, so `EmbeddedKafka.createTopic` is the way to make topics there.
public final class KafkaAdmin: Sendable {
    private let client: RDKafkaClient
    private let configuration: KafkaConfiguration

    /// Connects with `configuration` (only `bootstrap.servers` and security settings matter).
    public init(configuration: KafkaConfiguration) throws(KafkaError) {
        self.client = try RDKafkaClient(kind: .producer, configuration: configuration)
        self.configuration = configuration
    }

    /// The offsets consumer group `group` has committed for `partitions` (the next offset each
    /// member would read; absent where none), read without joining the group, so its members are
    /// not disturbed.
    public func committedOffsets(
        group: String, partitions: [KafkaTopicPartition], timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        var configuration = self.configuration
        configuration["group.id"] = group
        let reader = try RDKafkaClient(kind: .consumer, configuration: configuration)
        defer { reader.stopBackgroundWork() }
        let milliseconds = timeout.rdKafkaMilliseconds
        return try await offload { () -> Result<[KafkaTopicPartition: Int64], KafkaError> in
            do throws(KafkaError) { return .success(try reader.committed(partitions, timeoutMilliseconds: milliseconds)) } catch { return .failure(error) }
        }.get()
    }

    /// Creates the topics; one that already exists counts as created.
    ///
    /// - Throws: the first topic's error, naming it, or `.timedOut`.
    public func createTopics(_ topics: [KafkaTopicSpec], timeout: Duration = .seconds(30)) async throws(KafkaError) {
        guard !topics.isEmpty else { return }
        let client = self.client
        let result = await offload { client.createTopics(topics, timeout: timeout) }
        if let error = result { throw error }
    }

    /// Brokers and all topics.
    public func metadata(timeout: Duration = .seconds(10)) async throws(KafkaError) -> KafkaClusterMetadata {
        let client = self.client
        return try await offload { client.metadata(timeout: timeout) }.get()
    }

    /// Names of all topics, sorted, internal ones (`__consumer_offsets`) left out.
    public func listTopics(timeout: Duration = .seconds(10)) async throws(KafkaError) -> [String] {
        try await metadata(timeout: timeout).topics.filter { $0.error == nil && !$0.name.hasPrefix("__") }.map(\.name).sorted()
    }

    /// One topic's partitions and leaders.
    ///
    /// - Throws: `.broker(unknownTopicOrPartition)` naming the topic when it does not exist.
    public func describeTopic(_ name: String, timeout: Duration = .seconds(10)) async throws(KafkaError) -> KafkaClusterMetadata.Topic {
        guard let topic = try await metadata(timeout: timeout).topic(name) else {
            throw .broker(code: .unknownTopicOrPartition, message: "topic '\(name)' does not exist")
        }
        return topic
    }

    /// Stops the admin client's background thread.
    public func close() { client.stopBackgroundWork() }
}
