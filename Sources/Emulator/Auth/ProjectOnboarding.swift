import HTTPTypes
import Hummingbird
import InstanceAPI

/// How a project created after the onboarding cut-offs of api-reference §6 is refused: new
/// projects cannot onboard the Instance ID server API (after 2026-10-01) or device groups (after
/// 2026-12-01).
///
/// The answers follow Google's documented error model, not an invented one: an API a project
/// cannot use answers HTTP 403 `PERMISSION_DENIED` with a `google.rpc.ErrorInfo` detail whose
/// reason is `SERVICE_DISABLED` and whose metadata names the service (Service Usage
/// troubleshooting, "What does the service not enabled error mean?"; AIP-193). Device groups
/// live on `fcm.googleapis.com`, which a new project does use, so they are refused with a bare
/// 403 `PERMISSION_DENIED` for the feature.
struct ProjectOnboarding: RouterMiddleware {
    typealias Context = EmulatorContext

    /// The refused API.
    let api: BackendAPI
    /// The project number named in the refusal.
    let projectNumber: String

    /// Whether a new project is refused `api`: those Google turns down (`BackendAPI.isTurnedDown`)
    /// take no new projects even now.
    static func refuses(_ api: BackendAPI) -> Bool { api.isTurnedDown }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        refusal().httpResponse()
    }

    /// The answer to every call of `api`.
    func refusal() -> EmulatorResponse {
        switch api {
        case .deviceGroup, .groupExport:
            return EmulatorResponse.googleError(
                403, "PERMISSION_DENIED",
                "Device group messaging is not available to project \(projectNumber): new projects cannot onboard device groups after December 1, 2026."
            ).counting(items: 0)
        default:
            let service = "iid.googleapis.com"
            return EmulatorResponse.googleError(
                403, "PERMISSION_DENIED",
                "Instance ID API has not been used in project \(projectNumber) before or it is disabled. New projects cannot onboard it after October 1, 2026.",
                errorInfo: (reason: "SERVICE_DISABLED", domain: "googleapis.com", metadata: ["service": service, "consumer": "projects/\(projectNumber)"])
            ).counting(items: 0)
        }
    }
}
