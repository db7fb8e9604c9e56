/// Where the Firebase project a pipeline calls was chosen. The cases are in precedence order,
/// highest first (Google's order for client libraries, with the pipeline's own choice above
/// all); `ProjectChoice.resolve` takes the first given.
public enum ProjectOrigin: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `project:` in the pipeline's file.
    case pipelineFile
    /// `iidbatch run --project`.
    case option
    /// The `GOOGLE_CLOUD_PROJECT` environment variable.
    case environment
    /// The credentials' own project: the key file's `project_id`, or the metadata server's.
    case credentials

    /// Where, in the words the run's log uses (`project my-app (from --project)`).
    public var description: String {
        switch self {
        case .pipelineFile: "the pipeline file"
        case .option: "--project"
        case .environment: "$" + ProjectChoice.environmentVariable
        case .credentials: "the credentials"
        }
    }
}
