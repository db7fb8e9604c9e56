import Hummingbird
import InstanceAPI

/// Refuses a call without a valid, unexpired access token of this emulator (or every call while
/// the fault plan rejects credentials) with Google's 401, and tells the handler the token's project.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext

    let backend: EmulatorBackend

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let project = backend.auth.project(ofBearer: request.headers[.authorization], rejectAll: backend.faults.rejectsCredentials) else {
            return EmulatorResponse.googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.")
                .httpResponse()
        }
        var context = context
        context.project = project
        return try await next(request, context)
    }
}
