/// Body of `POST /emulator/v1/seed`: registration tokens and installations to create in bulk.
public struct SeedRequest: Codable, Sendable, Hashable {
    /// Registration tokens to create.
    public var tokens: [String]
    /// Their app (package name or bundle id).
    public var application: String
    /// `ANDROID`, `IOS` or `CHROME`.
    public var platform: String
    /// Installation ids (FIDs or instance ids) to create.
    public var installations: [String]
    /// The project they belong to; the emulator's own when nil.
    public var project: String?

    /// A seed request.
    public init(
        tokens: [String] = [], application: String = "com.example.app", platform: String = "ANDROID", installations: [String] = [], project: String? = nil
    ) {
        self.tokens = tokens
        self.application = application
        self.platform = platform
        self.installations = installations
        self.project = project
    }

    enum CodingKeys: String, CodingKey {
        case tokens, application, platform, installations, project
    }

    /// Every field is optional on the wire; absent ones take the defaults of `init`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tokens: try container.decodeIfPresent([String].self, forKey: .tokens) ?? [],
            application: try container.decodeIfPresent(String.self, forKey: .application) ?? "com.example.app",
            platform: try container.decodeIfPresent(String.self, forKey: .platform) ?? "ANDROID",
            installations: try container.decodeIfPresent([String].self, forKey: .installations) ?? [],
            project: try container.decodeIfPresent(String.self, forKey: .project))
    }
}
