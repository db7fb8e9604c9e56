/// An installation as `GET /emulator/v1/installations/{id}` shows it.
public struct InstallationState: Codable, Sendable, Hashable {
    /// The FID or instance id.
    public var id: String
    /// True once deleted.
    public var deleted: Bool
}
