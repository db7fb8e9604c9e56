import WireJSON

/// Body of `POST /iid/v1:batchAdd` and `:batchRemove` (§2.3).
package struct TopicBatchRequest: Codable, Sendable, Hashable {
    /// `/topics/{name}`.
    public var to: String
    /// At most 1,000 registration tokens.
    public var registrationTokens: PackedStrings

    /// A request for `topic` (with or without the `/topics/` prefix).
    public init(topic: String, tokens: PackedStrings) {
        self.to = topic.hasPrefix("/topics/") ? topic : "/topics/" + topic
        self.registrationTokens = tokens
    }

    /// A request for `tokens` on `topic`.
    public init(topic: String, tokens: [String]) {
        self.init(topic: topic, tokens: PackedStrings(tokens))
    }

    /// The wire names, every one written by `jsonBytes()` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case to
        case registrationTokens = "registration_tokens"
    }
}
