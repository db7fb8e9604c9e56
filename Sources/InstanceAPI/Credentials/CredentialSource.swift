/// Where access tokens come from: a service-account key (signed JWT exchanged at its token URI),
/// or the metadata server of the machine the process runs on (GKE workload identity, Cloud Run,
/// GCE), as Google's client libraries use them.
public enum CredentialSource: Sendable, CustomStringConvertible {
    /// A downloaded service-account key.
    case serviceAccount(ServiceAccountCredentials)
    /// The metadata server at `host` (`host[:port]`), serving the default service account of
    /// project `projectID`.
    case metadataServer(host: String, projectID: String)

    /// The project the credentials belong to.
    public var projectID: String {
        switch self {
        case .serviceAccount(let key): key.projectID
        case .metadataServer(_, let projectID): projectID
        }
    }

    /// Where the credentials came from, without any secret.
    public var description: String {
        switch self {
        case .serviceAccount(let key): "service-account key \(key)"
        case .metadataServer(let host, let projectID): "the metadata server at \(host) (project \(projectID))"
        }
    }
}
