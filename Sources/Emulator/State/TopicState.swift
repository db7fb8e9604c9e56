/// A topic's subscribers as `GET /emulator/v1/topics/{topic}` shows them.
public struct TopicState: Codable, Sendable, Hashable {
    /// The topic name.
    public var topic: String
    /// Subscribed tokens, sorted.
    public var tokens: [String]
}
