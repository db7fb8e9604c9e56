/// How an emulator starts.
public struct EmulatorConfiguration: Sendable {
    /// Interface to listen on; loopback by default.
    public var host: String
    /// Port; 0 picks a free one.
    public var port: Int
    /// The project its Google paths serve (`/v1/projects/{project}/…`).
    public var projectID: String
    /// Projects besides a caller's own that every service account of this emulator may call,
    /// as an IAM grant lets a workload-identity account in one project manage a Firebase project
    /// in another. A call whose path (or device-group `project_id`) names one of them acts on
    /// that project's state; any other project but the caller's own is refused with 403.
    public var grantedProjects: Set<String> = []
    /// The project number (sender id) reported as `authorizedEntity` and expected as the
    /// device-group `project_id` header (the project id is accepted too).
    public var projectNumber: String
    /// Seed of the fault injector: the same seed and the same sequence of calls give the same faults.
    public var seed: UInt64
    /// Faults to start with.
    public var faults: FaultPlan
    /// Lifetime of the access tokens it issues, in seconds.
    public var tokenLifetimeSeconds: Int
    /// Behave like a project created after the onboarding cut-offs (api-reference §6): the
    /// Instance ID API and device groups are refused (`ProjectOnboarding`); FCM v1 topics and
    /// deletions work.
    public var newProject: Bool
    /// The most subscriptions one page of the FCM v1 topic list holds, whatever `pageSize` asks
    /// (Google's limit is `APILimits.topicListPage`; a smaller one makes paging easy to test).
    public var topicListPageSize: Int
    /// Serve HTTPS with this certificate (HTTP/2 and HTTP/1.1 by ALPN), or plain HTTP/1.1 when nil.
    public var tls: EmulatorTLS?

    /// A configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 0, projectID: String = "demo", projectNumber: String = "123456789012",
        seed: UInt64 = 1, faults: FaultPlan = FaultPlan(), tokenLifetimeSeconds: Int = 3600, newProject: Bool = false,
        topicListPageSize: Int = 100, tls: EmulatorTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.projectID = projectID
        self.projectNumber = projectNumber
        self.seed = seed
        self.faults = faults
        self.tokenLifetimeSeconds = tokenLifetimeSeconds
        self.newProject = newProject
        self.topicListPageSize = topicListPageSize
        self.tls = tls
    }
}
