import Hummingbird

/// What the emulator's middleware learns about a call before its handler runs: the project its
/// credentials belong to, whether the quota throttles it (batch APIs then answer every item
/// `RESOURCE_EXHAUSTED`), and where the handler notes what the call carried for the statistics.
struct EmulatorContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The project of the bearer token (set by `AuthMiddleware`).
    var project = ""
    /// The quota throttles this call (set by `FaultMiddleware` for per-item quota APIs).
    var throttled = false
    /// Where the handler's items and codes go (set by `StatisticsMiddleware`).
    var tally: CallTally?

    init(source: Source) {
        coreContext = .init(source: source)
    }
}
