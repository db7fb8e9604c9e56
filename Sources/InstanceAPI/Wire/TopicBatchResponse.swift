/// Answer of batchAdd/batchRemove: one entry per token in request order; `{}` is success.
public struct TopicBatchResponse: Codable, Sendable, Hashable {
    /// One entry of `results`.
    public struct Entry: Codable, Sendable, Hashable {
        /// The error name, absent on success.
        public var error: String?
        /// An entry; nil `error` means success.
        public init(error: String? = nil) { self.error = error }

        /// The wire names, every one written by `TopicBatchResponse.jsonBody()` too (a test holds
        /// the two together).
        enum CodingKeys: String, CodingKey, CaseIterable {
            case error
        }
    }

    /// One entry per token, in request order.
    public var results: [Entry]

    /// An answer.
    public init(results: [Entry]) { self.results = results }

    /// The wire names, every one written by `jsonBody()` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case results
    }
}
