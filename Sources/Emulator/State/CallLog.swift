import InstanceAPI

/// What the emulator answered: counters per API and when calls arrived. Kept apart from
/// `EmulatorState`, under its own lock, so counting a call never waits behind a batch that is
/// changing thousands of tokens.
struct CallLog {
    /// Counters per API, as `GET /emulator/v1/stats` shows them.
    var stats = EmulatorStats()
    /// When the calls counted in `stats` arrived (the latest 100,000 or more).
    var arrivals: [ContinuousClock.Instant] = []

    /// Counts one call of `api` that arrived at `arrivedAt`, was answered `status`, carried
    /// `items` items, and whose items ended on `codes` (each code with how many items ended on
    /// it).
    mutating func record(
        _ api: BackendAPI, arrivedAt: ContinuousClock.Instant, status: Int, items: Int, codes: [(code: String, count: Int)], throttled: Bool
    ) {
        arrivals.append(arrivedAt)
        if arrivals.count >= 200_000 { arrivals.removeFirst(100_000) }
        stats.apis[api.rawValue, default: EmulatorStats.API()].count(status: status, items: items, codes: codes, throttled: throttled)
    }
}
