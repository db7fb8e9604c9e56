import Hummingbird
import InstanceAPI

/// Applies the fault plan to one API's calls: added latency, outage windows (503 with
/// `Retry-After`), injected call failures (the API's error, or a page that is not the API's), and
/// the quota (429 with `Retry-After`, or, for the
/// batch APIs that answer quota per item, a flag that makes the handler answer every item
/// `RESOURCE_EXHAUSTED`).
struct FaultMiddleware: RouterMiddleware {
    typealias Context = EmulatorContext

    let api: BackendAPI
    let faults: FaultInjector

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let (decision, latency) = faults.decide(api)
        if latency > .zero { try? await Task.sleep(for: latency) }
        let retryAfter = faults.plan.retryAfter
        switch decision {
        case .outage(let seconds):
            let headers = [("Retry-After", retryAfter ?? "\(seconds)")]
            return EmulatorResponse.googleError(503, "UNAVAILABLE", "The service is currently unavailable.", headers: headers).httpResponse()
        case .fail(let status):
            let name = status == 500 ? "INTERNAL" : status == 503 ? "UNAVAILABLE" : "UNKNOWN"
            return EmulatorResponse.googleError(status, name, "Injected failure.", headers: retryAfter.map { [("Retry-After", $0)] } ?? []).httpResponse()
        case .page(let status):
            return EmulatorResponse.page(status).httpResponse()
        case .throttle(let seconds) where !api.answersQuotaPerItem:
            context.tally?.markThrottled()
            let headers = [("Retry-After", retryAfter ?? "\(seconds)")]
            return EmulatorResponse.googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", headers: headers).httpResponse()
        case .throttle:
            context.tally?.markThrottled()
            var context = context
            context.throttled = true
            return try await next(request, context)
        case .proceed:
            return try await next(request, context)
        }
    }
}
