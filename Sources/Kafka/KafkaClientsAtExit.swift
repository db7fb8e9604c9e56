/// What `KafkaClients.awaitDestroyed(within:)` found when it returned.
public struct KafkaClientsAtExit: Sendable, Equatable {
    /// Names of the clients not yet destroyed: still referenced, or their destroy still running.
    public let live: [String]
    /// librdkafka threads still running (0 once every client was destroyed).
    public let threads: Int

    /// True when every client was destroyed and no librdkafka thread runs.
    public var isClean: Bool { live.isEmpty && threads == 0 }
}
