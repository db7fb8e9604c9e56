/// The answer of the device-group export GET (§4, §6): the registration tokens of the group a
/// notification key belongs to.
public struct DeviceGroupExport: Codable, Sendable, Hashable {
    /// The key asked about.
    public var notificationKey: String?
    /// The group's members.
    public var registrationIDs: [String]

    /// An answer.
    public init(notificationKey: String?, registrationIDs: [String]) {
        self.notificationKey = notificationKey
        self.registrationIDs = registrationIDs
    }

    enum CodingKeys: String, CodingKey {
        case notificationKey = "notification_key"
        case registrationIDs = "registration_ids"
    }
}
