/// What a topic to create looks like.
public struct KafkaTopicSpec: Sendable, Hashable {
    /// The topic name.
    public var name: String
    /// Number of partitions (at least 1).
    public var partitions: Int
    /// Replicas per partition (at least 1, at most the number of brokers).
    public var replicationFactor: Int
    /// Topic-level configs, e.g. `cleanup.policy=compact`.
    public var configs: [String: String]

    /// Describes a topic.
    public init(name: String, partitions: Int = 1, replicationFactor: Int = 1, configs: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.configs = configs
    }

    /// The most partitions `init(parsing:)` takes: more than a topic of iidbatch needs, and few
    /// enough for the embedded broker to create.
    public static let mostParsedPartitions = 10_000

    /// Parses `name` or `name:partitions` (as `iidbatch broker --topic` takes it).
    ///
    /// - Throws: `.invalidArgument` naming the text when the name is empty or the count is not a
    ///   positive integer.
    public init(parsing text: String) throws(KafkaError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty else {
            throw .invalidArgument(name: "topic", value: text, reason: "expected name or name:partitions")
        }
        var partitions = 1
        if parts.count == 2 {
            guard let count = Int(parts[1]), count > 0, count <= Self.mostParsedPartitions else {
                throw .invalidArgument(name: "topic", value: text, reason: "partitions must be an integer from 1 to \(Self.mostParsedPartitions)")
            }
            partitions = count
        }
        self.init(name: String(name), partitions: partitions)
    }
}
