import InstanceAPI
import WireJSON

/// One item of a request that did not succeed, in its outcome.
public struct FailedItem: Sendable, Hashable, Codable {
    /// Its position in the request's item list.
    public var index: Int
    /// The item itself (token, installation id, APNs token).
    public var item: String
    /// Its final code.
    public var code: ResultCode
    /// Whether the code is retryable (if so, the item was dead-lettered after its retries).
    public var retryable: Bool
    /// Attempts made, this record's and any before it (`priorAttempts`).
    public var attempts: Int
    /// The backend's words, when it gave any.
    public var message: String?

    /// A failed item.
    public init(index: Int, item: String, code: ResultCode, attempts: Int, message: String?) {
        self.index = index
        self.item = item
        self.code = code
        self.retryable = code.isRetryable
        self.attempts = attempts
        self.message = message
    }

    /// The wire names, every one written by `write(to:)` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case index, item, code, retryable, attempts, message
    }

    /// Writes the item as an object of an outcome's `failedItems`: members in `.sortedKeys`
    /// order, `message` left out when nil.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member(CodingKeys.attempts, attempts)
        writer.member(CodingKeys.code, code.rawValue)
        writer.member(CodingKeys.index, index)
        writer.member(CodingKeys.item, item)
        if let message { writer.member(CodingKeys.message, message) }
        writer.member(CodingKeys.retryable, retryable)
        writer.endObject()
    }
}
