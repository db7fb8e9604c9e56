/// Body of `POST /iid/v1:batchAdd` and `:batchRemove` (§2.3).
public struct TopicBatchRequest: Codable, Sendable, Hashable {
    /// `/topics/{name}`.
    public var to: String
    /// At most 1,000 registration tokens.
    public var registrationTokens: [String]

    /// A request for `topic` (with or without the `/topics/` prefix).
    public init(topic: String, tokens: [String]) {
        self.to = topic.hasPrefix("/topics/") ? topic : "/topics/" + topic
        self.registrationTokens = tokens
    }

    enum CodingKeys: String, CodingKey {
        case to
        case registrationTokens = "registration_tokens"
    }
}
