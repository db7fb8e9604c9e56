/// A device-group error answer: `{"error": "notification_key already exists"}`.
public struct DeviceGroupErrorBody: Codable, Sendable, Hashable {
    /// What went wrong, in words.
    public var error: String
    /// An error body.
    public init(error: String) { self.error = error }
}
