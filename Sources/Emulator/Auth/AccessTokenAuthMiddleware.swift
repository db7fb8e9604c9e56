import HTTPTypes
import Hummingbird

/// The Instance ID server API wants `access_token_auth: true` next to an OAuth2 access token;
/// without it the call is refused with 401, as Google does.
struct AccessTokenAuthMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext

    static let header = HTTPField.Name("access_token_auth")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[Self.header] == "true" else {
            return EmulatorResponse.error(401, "access_token_auth: true is required with an OAuth2 access token").httpResponse()
        }
        return try await next(request, context)
    }
}
