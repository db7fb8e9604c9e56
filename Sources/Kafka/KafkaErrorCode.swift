/// A librdkafka error code (its response-error enum): negative values are local to the client,
/// non-negative values are Kafka protocol error codes.
public struct KafkaErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    /// Wraps a raw librdkafka error code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// True for the errors that say the cluster refused this client while it connected: SASL
    /// credentials it does not take, an authentication or TLS handshake that failed. librdkafka
    /// reports them only to its error callback; the request that waited for the connection only
    /// times out. A configuration to fix, not an outage to wait out.
    public var refusesTheClient: Bool { Self.refusals.contains(self) }

    private static let refusals: Set<KafkaErrorCode> = [.authentication, .saslAuthenticationFailed, .ssl]

    /// librdkafka's symbolic name, for example `NOT_LEADER_FOR_PARTITION` or `_QUEUE_FULL`.
    public var name: String { RDKafkaErrors.name(of: rawValue) }

    public var description: String { name }

    /// True for produce errors that a retry of the same record cannot fix.
    public var isPermanentForProducer: Bool {
        Self.permanentForProducer.contains(self)
    }

    private static let permanentForProducer: Set<KafkaErrorCode> = [
        .messageSizeTooLarge, .recordListTooLarge, .invalidRecord, .unknownTopic, .unknownPartition, .topicException,
        .topicAuthorizationFailed, .clusterAuthorizationFailed, .fatal, .invalidArgumentLocal,
    ]

    /// Protocol: the record is larger than the broker or topic accepts (also raised locally by
    /// the producer against `message.max.bytes`).
    public static let messageSizeTooLarge = KafkaErrorCode(rawValue: 10)
    /// Protocol: the batch is larger than the broker accepts.
    public static let recordListTooLarge = KafkaErrorCode(rawValue: 18)
    /// Protocol: the topic name is invalid, or the topic is internal.
    public static let topicException = KafkaErrorCode(rawValue: 17)
    /// Protocol: not authorised to write to the topic.
    public static let topicAuthorizationFailed = KafkaErrorCode(rawValue: 29)
    /// Protocol: not authorised on the cluster.
    public static let clusterAuthorizationFailed = KafkaErrorCode(rawValue: 31)
    /// Protocol: the broker refused the record as invalid.
    public static let invalidRecord = KafkaErrorCode(rawValue: 87)
    /// Local: the topic is not in the cluster.
    public static let unknownTopic = KafkaErrorCode(rawValue: -188)
    /// Local: the partition is not in the topic.
    public static let unknownPartition = KafkaErrorCode(rawValue: -190)
    /// Local: an invalid argument.
    public static let invalidArgumentLocal = KafkaErrorCode(rawValue: -186)

    /// Local: the producer's queue is full.
    public static let queueFull = KafkaErrorCode(rawValue: -184)
    /// Local: the message timed out before delivery.
    public static let messageTimedOut = KafkaErrorCode(rawValue: -192)
    /// Local: all brokers are down.
    public static let allBrokersDown = KafkaErrorCode(rawValue: -187)
    /// Local: a fatal error; the client must be recreated.
    public static let fatal = KafkaErrorCode(rawValue: -150)
    /// Local: an operation timed out.
    public static let timedOut = KafkaErrorCode(rawValue: -185)
    /// Local: no offset to commit.
    public static let noOffset = KafkaErrorCode(rawValue: -168)
    /// Local: the message was purged from the queue at close.
    public static let purged = KafkaErrorCode(rawValue: -152)
    /// Protocol: the topic or partition does not exist.
    public static let unknownTopicOrPartition = KafkaErrorCode(rawValue: 3)
    /// Protocol: the broker is not the leader of the partition.
    public static let notLeaderForPartition = KafkaErrorCode(rawValue: 6)
    /// Protocol: the request timed out on the broker.
    public static let requestTimedOut = KafkaErrorCode(rawValue: 7)
    /// Protocol: not enough in-sync replicas.
    public static let notEnoughReplicas = KafkaErrorCode(rawValue: 19)
    /// Protocol: the group coordinator is not available.
    public static let coordinatorNotAvailable = KafkaErrorCode(rawValue: 15)
    /// Protocol: the group is rebalancing.
    public static let rebalanceInProgress = KafkaErrorCode(rawValue: 27)
    /// Protocol: the topic already exists.
    public static let topicAlreadyExists = KafkaErrorCode(rawValue: 36)
    /// Protocol: not authorised on the consumer group.
    public static let groupAuthorizationFailed = KafkaErrorCode(rawValue: 30)
    /// Protocol: the broker refused the SASL credentials.
    public static let saslAuthenticationFailed = KafkaErrorCode(rawValue: 58)
    /// Local: authentication (SASL or TLS) with the broker failed.
    public static let authentication = KafkaErrorCode(rawValue: -169)
    /// Local: the TLS handshake with a broker failed (certificates, protocol).
    public static let ssl = KafkaErrorCode(rawValue: -181)
    /// Local: the connection to a broker failed or was lost.
    public static let transport = KafkaErrorCode(rawValue: -195)
    /// Local: a broker's host name could not be resolved.
    public static let resolve = KafkaErrorCode(rawValue: -193)
    /// Protocol: the broker does not support the request's version.
    public static let unsupportedVersion = KafkaErrorCode(rawValue: 35)
    /// Protocol: the request needs a newer message format than the topic has (a time lookup on
    /// records without timestamps).
    public static let unsupportedForMessageFormat = KafkaErrorCode(rawValue: 43)
    /// Local: the broker lacks a feature the request needs.
    public static let unsupportedFeature = KafkaErrorCode(rawValue: -165)
}
