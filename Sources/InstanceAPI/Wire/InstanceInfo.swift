/// Answer of `GET /iid/info/{token}` (§2.1).
public struct InstanceInfo: Codable, Sendable, Hashable {
    /// A topic relation, with the date it was added.
    public struct TopicRelation: Codable, Sendable, Hashable {
        /// `yyyy-MM-dd`.
        public var addDate: String
        /// A relation.
        public init(addDate: String) { self.addDate = addDate }
    }

    /// `rel`: present only with `details=true`.
    public struct Relations: Codable, Sendable, Hashable {
        /// Topics by name.
        public var topics: [String: TopicRelation]?
        /// Relations.
        public init(topics: [String: TopicRelation]?) { self.topics = topics }
    }

    /// The app's package name or bundle id.
    public var application: String
    /// The project number (sender id) the token belongs to.
    public var authorizedEntity: String
    /// The app version, when known.
    public var applicationVersion: String?
    /// `ANDROID`, `IOS` or `CHROME`.
    public var platform: String
    /// Subscriptions, with `details=true`.
    public var rel: Relations?

    /// An answer.
    public init(application: String, authorizedEntity: String, applicationVersion: String?, platform: String, rel: Relations?) {
        self.application = application
        self.authorizedEntity = authorizedEntity
        self.applicationVersion = applicationVersion
        self.platform = platform
        self.rel = rel
    }
}
