/// Body of `POST /fcm/notification` (§4).
public struct DeviceGroupRequest: Codable, Sendable, Hashable {
    /// `create`, `add` or `remove`.
    public var operation: String
    /// The group's name, unique per app.
    public var notificationKeyName: String
    /// The group's key (for add and remove).
    public var notificationKey: String?
    /// The tokens to create with, add or remove.
    public var registrationIDs: [String]

    /// A request.
    public init(operation: String, notificationKeyName: String, notificationKey: String?, registrationIDs: [String]) {
        self.operation = operation
        self.notificationKeyName = notificationKeyName
        self.notificationKey = notificationKey
        self.registrationIDs = registrationIDs
    }

    enum CodingKeys: String, CodingKey {
        case operation
        case notificationKeyName = "notification_key_name"
        case notificationKey = "notification_key"
        case registrationIDs = "registration_ids"
    }
}
