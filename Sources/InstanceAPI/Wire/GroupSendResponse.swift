/// Answer of a send to a device group.
public struct GroupSendResponse: Codable, Sendable, Hashable {
    /// Members reached.
    public var success: Int
    /// Members not reached.
    public var failure: Int
    /// The members not reached, for the sender to retry with backoff.
    public var failedRegistrationIDs: [String]?

    /// An answer.
    public init(success: Int, failure: Int, failedRegistrationIDs: [String]?) {
        self.success = success
        self.failure = failure
        self.failedRegistrationIDs = failedRegistrationIDs
    }

    enum CodingKeys: String, CodingKey {
        case success, failure
        case failedRegistrationIDs = "failed_registration_ids"
    }
}
