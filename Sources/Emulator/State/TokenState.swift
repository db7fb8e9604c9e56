/// One registration token as `GET /emulator/v1/tokens/{token}` shows it.
public struct TokenState: Codable, Sendable, Hashable {
    /// The token.
    public var token: String
    /// Its project.
    public var project: String
    /// Its app.
    public var application: String
    /// Its platform.
    public var platform: String
    /// Topics it is subscribed to, sorted.
    public var topics: [String]
    /// True once the app was uninstalled (deleted).
    public var deleted: Bool
}
