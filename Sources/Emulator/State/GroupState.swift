/// A device group as `GET /emulator/v1/groups/{name}` shows it.
public struct GroupState: Codable, Sendable, Hashable {
    /// The notification key name.
    public var name: String
    /// Its members, in the order they joined.
    public var members: [String]
}
