/// What `KafkaClients.awaitDestroyed(within:)` found when it returned.
public struct KafkaClientsAtExit: Sendable, Equatable {
    /// Names of the clients not yet destroyed: still referenced, or their destroy still running.
    public let live: [String]
    /// Names of the clients never to be destroyed, on purpose: cooperative-sticky consumers that
    /// never got an assignment, on librdkafka before 2.3.0 (see `KafkaConsumer.close(timeout:)`).
    /// Their threads end with the process.
    public let kept: [String]
    /// librdkafka threads still running (0 once every client was destroyed and none was kept).
    public let threads: Int

    /// True when every client was destroyed and no librdkafka thread runs.
    public var isClean: Bool { live.isEmpty && kept.isEmpty && threads == 0 }
}
