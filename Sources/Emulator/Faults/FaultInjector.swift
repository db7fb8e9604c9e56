import InstanceAPI
import Synchronization

/// Decides, call by call and item by item, which faults of the `FaultPlan` strike.
///
/// Draws come from one seeded generator: the same seed and the same sequence of calls give the
/// same faults (concurrent calls interleave their draws in arrival order).
final class FaultInjector: Sendable {
    /// What happens to a whole call.
    enum CallDecision: Equatable {
        case proceed
        /// Answer this status (500/503 and the like) for the whole call.
        case fail(status: Int)
        /// Answer this status with a page that is not the API's (a proxy's, a wrong path's).
        case page(status: Int)
        /// Inside an outage window: 503 with `Retry-After`.
        case outage(retryAfterSeconds: Int)
        /// Over quota: batch calls answer RESOURCE_EXHAUSTED items, others 429.
        case throttle(retryAfterSeconds: Int)
    }

    private struct State {
        var plan: FaultPlan
        var planStart: ContinuousClock.Instant
        var random: SplitMix64
        var buckets: [String: TokenBucket] = [:]
    }

    private struct TokenBucket {
        var tokens: Double
        var last: ContinuousClock.Instant

        mutating func take(rate: Double, now: ContinuousClock.Instant) -> Bool {
            let elapsed = now - last
            last = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(max(rate, 1), tokens + seconds * rate)
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    private let state: Mutex<State>

    init(plan: FaultPlan, seed: UInt64) {
        state = Mutex(State(plan: plan, planStart: .now, random: SplitMix64(seed: seed)))
    }

    var plan: FaultPlan { state.withLock { $0.plan } }

    /// Replaces the plan; outage windows count from now, quotas start full.
    func setPlan(_ plan: FaultPlan) {
        state.withLock { state in
            state.plan = plan
            state.planStart = .now
            state.buckets = [:]
        }
    }

    /// The fate of one call of `api`, and the latency to add before answering.
    func decide(_ api: BackendAPI) -> (CallDecision, latency: Duration) {
        state.withLock { state in
            let now = ContinuousClock.now
            let plan = state.plan
            var latency = plan.latencyMilliseconds
            if plan.jitterMilliseconds > 0 { latency += state.random.unit() * plan.jitterMilliseconds }
            let delay = Duration.microseconds(Int64(latency * 1000))
            let sincePlan = now - state.planStart
            let elapsed = Double(sincePlan.components.seconds) + Double(sincePlan.components.attoseconds) / 1e18
            for outage in plan.outages where elapsed >= outage.startSeconds && elapsed < outage.startSeconds + outage.durationSeconds {
                let left = outage.startSeconds + outage.durationSeconds - elapsed
                return (.outage(retryAfterSeconds: max(1, Int(left.rounded(.up)))), delay)
            }
            if let rate = plan.quota[api.rawValue] ?? plan.quota["*"] {
                var bucket = state.buckets[api.rawValue] ?? TokenBucket(tokens: max(rate, 1), last: now)
                let allowed = bucket.take(rate: rate, now: now)
                state.buckets[api.rawValue] = bucket
                if !allowed { return (.throttle(retryAfterSeconds: 1), delay) }
            }
            for (status, rate) in plan.callErrors.sorted(by: { $0.key < $1.key }) where state.random.unit() < rate {
                return (.fail(status: Int(status) ?? 500), delay)
            }
            for (status, rate) in plan.pageErrors.sorted(by: { $0.key < $1.key }) where state.random.unit() < rate {
                return (.page(status: Int(status) ?? 404), delay)
            }
            return (.proceed, delay)
        }
    }

    /// For each of `count` items, the error name to inject, or nil.
    func itemErrors(count: Int) -> [String?] {
        state.withLock { state in
            let rates = state.plan.itemErrors.sorted { $0.key < $1.key }
            guard !rates.isEmpty else { return Array(repeating: nil, count: count) }
            return (0..<count).map { _ in
                let draw = state.random.unit()
                var cumulative = 0.0
                for (code, rate) in rates {
                    cumulative += rate
                    if draw < cumulative { return code }
                }
                return nil
            }
        }
    }

    /// True when every access token must be refused.
    var rejectsCredentials: Bool { state.withLock { $0.plan.rejectCredentials } }
}
