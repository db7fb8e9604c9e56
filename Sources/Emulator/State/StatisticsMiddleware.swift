import Hummingbird
import InstanceAPI

/// Counts every call of one API in the emulator's statistics: its status, its items and the
/// codes they ended on, whoever answered it (the handler, or the auth or fault middleware).
struct StatisticsMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext

    let api: BackendAPI
    let backend: EmulatorBackend

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let arrived = ContinuousClock.now
        let tally = CallTally()
        var context = context
        context.tally = tally
        let response = try await next(request, context)
        let (items, codes) = tally.value
        backend.count(api, arrivedAt: arrived, status: Int(response.status.code), items: items, codes: codes, throttled: tally.throttled)
        return response
    }
}
