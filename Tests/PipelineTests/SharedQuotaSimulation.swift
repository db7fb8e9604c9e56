import InstanceAPI
import TestSupport

@testable import Pipeline

/// Workers, each with its own pacing (`APIPacing`: the adaptive rate, its token bucket and
/// `Retry-After`) and `ConcurrencyLimit`, and an endless backlog, calling one API against one
/// `QuotaModel`, on an injected clock in 1 ms steps. Calls are answered `latency` after they start
/// (± `jitter`, drawn from a seeded generator); the quota decides as a call arrives, as the
/// emulator does.
struct SharedQuotaSimulation: Sendable {
    /// What one second of the run did.
    struct Second: Sendable {
        var accepted = 0
        var throttled = 0
        /// Accepted calls by worker.
        var acceptedBy: [Int]
        /// The most calls in flight at once, by worker.
        var peakInFlight: [Int]
    }

    /// One call in flight.
    private struct Call {
        var worker: Int
        var startedAt: ContinuousClock.Instant
        var answerAt: ContinuousClock.Instant
        var accepted: Bool
    }

    let api = BackendAPI.fcmSubscribe
    let workers: Int
    let settings: AdaptiveRate.Settings
    let cap: Int
    let latency: Duration
    let jitter: Duration
    let t0 = ContinuousClock.now

    /// `run`'s seconds, computed on a thread of its own: a minute of simulated calls is seconds of
    /// CPU, which on the cooperative pool would hold one of its two threads from every async test
    /// of the process (see `onOwnThread`).
    func secondsOnOwnThread(quota: @escaping @Sendable (Int) -> Double, retryAfter: Bool, seconds: Int) async -> [Second] {
        await onOwnThread { [self] in run(quota: quota, retryAfter: retryAfter, seconds: seconds).seconds }
    }

    /// Runs `seconds` of simulated time against `quota`; returns each second's figures and the
    /// workers' pacing at the end.
    func run(quota: @escaping (Int) -> Double, retryAfter: Bool, seconds: Int) -> (seconds: [Second], pacing: [APIPacing], limits: [ConcurrencyLimit]) {
        var backend = QuotaModel(rate: quota, retryAfter: retryAfter, start: t0)
        var pacing = (0..<workers).map { _ in APIPacing(settings) }
        var limits = (0..<workers).map { _ in ConcurrencyLimit(cap: cap) }
        var inFlight = Array(repeating: 0, count: workers)
        var calls: [Call] = []
        var random = SplitMix64(seed: 7)
        var perSecond = (0..<seconds).map { _ in Second(acceptedBy: Array(repeating: 0, count: workers), peakInFlight: Array(repeating: 0, count: workers)) }
        for step in 0..<(seconds * 1_000) {
            let now = t0 + .milliseconds(step)
            let second = step / 1_000
            // Answers due by now, in the order they come.
            var kept: [Call] = []
            kept.reserveCapacity(calls.count)
            for call in calls {
                guard call.answerAt <= now else {
                    kept.append(call)
                    continue
                }
                inFlight[call.worker] -= 1
                limits[call.worker].answered(startedAt: call.startedAt, now: now)
                pacing[call.worker].answered(api, startedAt: call.startedAt, throttled: !call.accepted, now: now)
                if !call.accepted, backend.retryAfter { pacing[call.worker].block(api, for: .seconds(1), now: now) }
            }
            calls = kept
            // Workers take turns each millisecond, so that none is always first at the quota.
            for turn in 0..<workers {
                let worker = (turn + step) % workers
                while inFlight[worker] < limits[worker].limit(rate: pacing[worker].pace(of: api)), pacing[worker].admit(api, now: now) == nil {
                    let accepted = backend.accepts(now: now)
                    let spread = jitter == .zero ? Duration.zero : jitter * (2 * random.unit() - 1)
                    calls.append(Call(worker: worker, startedAt: now, answerAt: now + latency + spread, accepted: accepted))
                    inFlight[worker] += 1
                    if accepted {
                        perSecond[second].accepted += 1
                        perSecond[second].acceptedBy[worker] += 1
                    } else {
                        perSecond[second].throttled += 1
                    }
                }
                perSecond[second].peakInFlight[worker] = max(perSecond[second].peakInFlight[worker], inFlight[worker])
            }
        }
        return (perSecond, pacing, limits)
    }
}
