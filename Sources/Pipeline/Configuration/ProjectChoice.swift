/// The Firebase project a pipeline's calls go to, and where that choice was made.
public struct ProjectChoice: Sendable, Hashable, CustomStringConvertible {
    /// The environment variable Google's client libraries read the project from.
    public static let environmentVariable = "GOOGLE_CLOUD_PROJECT"

    /// The project id.
    public var id: String
    /// Where it was chosen.
    public var origin: ProjectOrigin

    /// A choice.
    public init(id: String, origin: ProjectOrigin) {
        self.id = id
        self.origin = origin
    }

    /// The first project given, in `ProjectOrigin`'s order: the pipeline file's `project:`, then
    /// `--project`, then `$GOOGLE_CLOUD_PROJECT`, then the credentials' own. An empty text
    /// counts as not given (as an empty variable does for Google's libraries). Nil when none is.
    public static func resolve(pipeline: String?, option: String?, environment: String?, credentials: String?) -> ProjectChoice? {
        for origin in ProjectOrigin.allCases {
            let given: String? =
                switch origin {
                case .pipelineFile: pipeline
                case .option: option
                case .environment: environment
                case .credentials: credentials
                }
            if let id = given, !id.isEmpty { return ProjectChoice(id: id, origin: origin) }
        }
        return nil
    }

    /// Why the id cannot name a project (`ProjectID.credentialsProblem`), for a choice of the
    /// credentials' project (a key file's, or whatever a metadata server answered: it goes into
    /// every call's URL); nil for a usable one, and for the other origins, checked where given.
    public var problem: String? {
        origin == .credentials ? ProjectID.credentialsProblem(with: id) : nil
    }

    /// `my-app (from --project)`.
    public var description: String { "\(id) (from \(origin))" }
}
