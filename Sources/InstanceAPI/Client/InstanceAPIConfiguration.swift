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
    /// HTTP/1.1 connections kept open per host between calls; how many calls run at once is the
    /// caller's concurrency (each HTTP/1.1 call in flight has a connection of its own).
    public var maxConnectionsPerHost: Int
    /// HTTP/2 connections per host at most; calls beyond what they carry at once (the server's
    /// stream limit, 100 at Google) wait for a stream.
    public var maxHTTP2ConnectionsPerHost: Int
    /// Certificate authorities trusted besides the system's, for backend, token and metadata
    /// calls alike.
    public var extraTrustRoots: ExtraTrustRoots?

    /// Google's endpoints.
    public init(
        iidBaseURL: String = "https://iid.googleapis.com", fcmBaseURL: String = "https://fcm.googleapis.com",
        installationsBaseURL: String = "https://console.firebase.google.com", tokenURI: String? = nil,
        projectID: String? = nil, senderID: String? = nil, timeout: Duration = .seconds(30), maxConnectionsPerHost: Int = 64,
        maxHTTP2ConnectionsPerHost: Int = 8, extraTrustRoots: ExtraTrustRoots? = nil
    ) {
        self.iidBaseURL = iidBaseURL
        self.fcmBaseURL = fcmBaseURL
        self.installationsBaseURL = installationsBaseURL
        self.tokenURI = tokenURI
        self.projectID = projectID
        self.senderID = senderID
        self.timeout = timeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxHTTP2ConnectionsPerHost = maxHTTP2ConnectionsPerHost
        self.extraTrustRoots = extraTrustRoots
    }

    /// Every API, and the token endpoint, at one base URL (the emulator serves them all).
    public static func singleHost(_ baseURL: String, extraTrustRoots: ExtraTrustRoots? = nil) -> InstanceAPIConfiguration {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return InstanceAPIConfiguration(
            iidBaseURL: base, fcmBaseURL: base, installationsBaseURL: base, tokenURI: base + "/token", extraTrustRoots: extraTrustRoots)
    }
}
