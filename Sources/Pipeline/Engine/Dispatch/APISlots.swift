import InstanceAPI

/// The calls in flight per API and how many each may have (`ConcurrencyLimit`, learned from its
/// answers' latency, never above the pipeline's `concurrency`): the part of `DispatchMachine`'s
/// start decision that counts, kept apart so that the count has one owner.
struct APISlots: Sendable {
    /// The cap every API's limit stays under.
    private var cap: Int
    /// The calls in flight each API may have, learned from its answers' latency.
    private var limits: [BackendAPI: ConcurrencyLimit] = [:]
    /// The calls in flight of each API (none listed: none running).
    private(set) var running: [BackendAPI: Int] = [:]

    /// Slots under `cap` calls in flight per API.
    init(cap: Int) {
        self.cap = cap
    }

    /// The calls of `api` that may be in flight at `rate` (its paced rate, or while unpaced its
    /// ceiling; nil: none).
    func limit(_ api: BackendAPI, rate: Double?) -> Int {
        (limits[api] ?? ConcurrencyLimit(cap: cap)).limit(rate: rate)
    }

    /// True while `api` has fewer calls in flight than its limit at `rate`.
    func hasSlot(_ api: BackendAPI, rate: Double?) -> Bool {
        running[api, default: 0] < limit(api, rate: rate)
    }

    /// A call of `api` started.
    mutating func started(_ api: BackendAPI) {
        running[api, default: 0] += 1
    }

    /// A call of `api` started at `startedAt` came back at `now`; `answered`: the backend answered
    /// it (its latency teaches the limit).
    mutating func ended(_ api: BackendAPI, startedAt: ContinuousClock.Instant, answered: Bool, now: ContinuousClock.Instant) {
        running[api]! -= 1
        if running[api] == 0 { running[api] = nil }
        if answered { limits[api, default: ConcurrencyLimit(cap: cap)].answered(startedAt: startedAt, now: now) }
    }

    /// Every API's limit is held under `cap` from now on.
    mutating func reconfigure(cap: Int) {
        self.cap = cap
        for api in limits.keys { limits[api]!.reconfigure(cap: cap) }
    }
}
