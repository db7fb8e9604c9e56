/// Success answer of every device-group call: the group's key.
public struct DeviceGroupResponse: Codable, Sendable, Hashable {
    /// A valid key for the group (each retrieve may return another, equally valid one).
    public var notificationKey: String

    /// An answer.
    public init(notificationKey: String) { self.notificationKey = notificationKey }

    enum CodingKeys: String, CodingKey {
        case notificationKey = "notification_key"
    }
}
