import InstanceAPI

/// What the dispatch machine shows of its state: to the worker machine, its metrics and drains,
/// and to the invariant checks.
extension DispatchMachine {
    /// Calls whose answer has not come back.
    var runningCalls: Int { running.count }

    /// The adaptive rate of each API called so far.
    var rates: [BackendAPI: AdaptiveRate] { pacing.rates }

    /// The calls in flight each API called so far may have now (`ConcurrencyLimit`).
    var concurrencyLimits: [BackendAPI: Int] {
        Dictionary(uniqueKeysWithValues: pacing.rates.keys.map { ($0, slots.limit($0, rate: pacing.pace(of: $0))) })
    }

    /// The calls in flight of each API (none listed: none running).
    var runningCallsPerAPI: [BackendAPI: Int] { slots.running }

    /// Calls waiting to start (queued or backing off) and items waiting to be planned.
    var hasWaitingWork: Bool { queue.count > 0 || !backoffs.isEmpty || !planner.isEmpty }

    /// True while the circuit breaker lets calls flow.
    var breakerClosed: Bool { breaker.isClosed }

    /// Whether the breaker is open and only suspects wait (with work behind their keys): new work
    /// alone can show whether the system or those items fail (consumption goes on for it).
    var awaitsNewWork: Bool { !breaker.isClosed && queue.holdsOnlySuspects }

    /// Running calls that carry an item of a request in `handles`.
    func runningCalls(carrying handles: Set<RequestHandle>) -> Int {
        running.values.count { call in call.job.origins.carries(any: handles) }
    }

    /// Running calls that carry an item of a dropped (revoked) request, or every running call once
    /// stopped: those requests are abandoned to another worker, and the calls must send nothing
    /// more (`SendGate`). One withdrawn so, unsent, goes again with its other items.
    var abandonedCalls: [Int] { running.compactMap { id, call in stopped || !call.revoked.isEmpty ? id : nil } }

    /// Keys whose holders do not match the jobs that hold them (each running, waiting to retry or
    /// backing off holds its key once), with both counts: empty unless the per-key order is
    /// broken, for invariant checks. A key held by no such job would stall its key forever.
    var misheldKeys: [String: (held: Int, holding: Int)] {
        var holding: [String: Int] = [:]
        for call in running.values { if let key = call.job.orderingKey { holding[key, default: 0] += 1 } }
        for job in queue.waitingRetries { if let key = job.orderingKey { holding[key, default: 0] += 1 } }
        for scheduled in backoffs.unordered { if let key = scheduled.job.orderingKey { holding[key, default: 0] += 1 } }
        let held = queue.holdCounts
        var mismatched: [String: (held: Int, holding: Int)] = [:]
        for key in Set(held.keys).union(holding.keys) where held[key] != holding[key] {
            mismatched[key] = (held[key] ?? 0, holding[key] ?? 0)
        }
        return mismatched
    }
}
