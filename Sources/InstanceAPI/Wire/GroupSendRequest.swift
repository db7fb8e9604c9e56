/// Body of `POST /fcm/send` to a device group (§4).
public struct GroupSendRequest: Codable, Sendable, Hashable {
    /// The group's notification key.
    public var to: String
    /// The data payload.
    public var data: [String: String]

    /// A request.
    public init(to: String, data: [String: String]) {
        self.to = to
        self.data = data
    }
}
