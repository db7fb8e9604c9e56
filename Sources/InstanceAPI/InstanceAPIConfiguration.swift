/// Where the backend APIs are and how to call them. Every base URL is configurable, so the same
/// client talks to Google, to a proxy, or to the emulator.
public struct InstanceAPIConfiguration: Sendable {
    /// Instance ID server API (§2): `https://iid.googleapis.com`.
    public var iidBaseURL: String
    /// FCM (§2.6 and §4): `https://fcm.googleapis.com`.
    public var fcmBaseURL: String
    /// Installation deletion (§3): `https://console.firebase.google.com`.
    public var installationsBaseURL: String
    /// Overrides the key file's `token_uri`.
    public var tokenURI: String?
    /// Overrides the key file's `project_id`.
    public var projectID: String?
    /// The sender id (project number) sent as `project_id` to the device-group API; defaults to
    /// the project id.
    public var senderID: String?
    /// How long one call may take before it counts as `timedOut`.
    public var timeout: Duration
    /// Connections kept open per host between calls; how many calls run at once is the caller's
    /// concurrency (each call in flight has a connection of its own).
    public var maxConnectionsPerHost: Int

    /// Google's endpoints.
    public init(
        iidBaseURL: String = "https://iid.googleapis.com", fcmBaseURL: String = "https://fcm.googleapis.com",
        installationsBaseURL: String = "https://console.firebase.google.com", tokenURI: String? = nil,
        projectID: String? = nil, senderID: String? = nil, timeout: Duration = .seconds(30), maxConnectionsPerHost: Int = 64
    ) {
        self.iidBaseURL = iidBaseURL
        self.fcmBaseURL = fcmBaseURL
        self.installationsBaseURL = installationsBaseURL
        self.tokenURI = tokenURI
        self.projectID = projectID
        self.senderID = senderID
        self.timeout = timeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
    }

    /// Every API, and the token endpoint, at one base URL (the emulator serves them all).
    public static func singleHost(_ baseURL: String) -> InstanceAPIConfiguration {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return InstanceAPIConfiguration(iidBaseURL: base, fcmBaseURL: base, installationsBaseURL: base, tokenURI: base + "/token")
    }
}
