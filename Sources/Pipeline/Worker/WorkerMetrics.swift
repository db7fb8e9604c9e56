import InstanceAPI
import Metrics
import Synchronization

/// A worker's metrics through swift-metrics (Prometheus names: `_total`, `_seconds`, base units;
/// every metric labelled with its `pipeline`). Without a metrics backend they cost next to nothing.
/// Each metric name always has the same label names, and each labelled series is made once.
final class WorkerMetrics: Sendable {
    private let pipeline: String
    private let counters = Mutex<[String: Counter]>([:])
    private let gauges = Mutex<[String: Gauge]>([:])
    private let timers = Mutex<[String: Metrics.Timer]>([:])
    /// The gauges set after every event, made once.
    private let itemsInFlight: Gauge
    private let pausedPartitions: Gauge
    private let circuitBreakerOpen: Gauge

    /// Metrics of pipeline `pipeline`.
    init(pipeline: String) {
        self.pipeline = pipeline
        itemsInFlight = Gauge(label: MetricName.itemsInFlight.rawValue, dimensions: [("pipeline", pipeline)])
        pausedPartitions = Gauge(label: MetricName.pausedPartitions.rawValue, dimensions: [("pipeline", pipeline)])
        circuitBreakerOpen = Gauge(label: MetricName.circuitBreakerOpen.rawValue, dimensions: [("pipeline", pipeline)])
    }

    /// A record was read from the request topic.
    func recordConsumed() { counter(.recordsConsumed).increment() }

    /// An outcome was acknowledged: the request's status and its items' final codes.
    func outcomePublished(op: String, status: String, codes: [String: Int], latency: Duration) {
        counter(.requests, ("op", op), ("status", status)).increment()
        for (code, count) in codes { counter(.items, ("op", op), ("code", code)).increment(by: count) }
        timer(.requestDuration).recordNanoseconds(Self.nanoseconds(latency))
    }

    /// A dead letter of `kind` was acknowledged.
    func deadLettered(kind: String) { counter(.deadLetters, ("kind", kind)).increment() }

    /// A call attempt of `api` ended with HTTP `status` (or `none` without an answer) after `duration`.
    func callAttempt(api: String, status: String, duration: Duration) {
        counter(.callAttempts, ("api", api), ("status", status)).increment()
        timer(.callDuration, ("api", api)).recordNanoseconds(Self.nanoseconds(duration))
    }

    /// Items started again after a failed attempt.
    func retried(items: Int) { counter(.itemRetries).increment(by: items) }

    /// The state the gauges show.
    func state(itemsInFlight: Int, pausedPartitions: Int, breakerOpen: Bool, rates: [BackendAPI: AdaptiveRate]) {
        self.itemsInFlight.record(itemsInFlight)
        self.pausedPartitions.record(pausedPartitions)
        circuitBreakerOpen.record(breakerOpen ? 1 : 0)
        for (api, rate) in rates { gauge(.rate, ("api", api.rawValue)).record(rate.rate) }
    }

    /// The operator's settings in force: paused or not, and the version of each control
    /// document by scope (a scope reset to its file shows 0).
    func control(paused: Bool, overrides: [String: Int]) {
        gauge(.controlPaused).record(paused ? 1 : 0)
        let shown = gauges.withLock { gauges in
            gauges.keys.filter { $0.hasPrefix(MetricName.controlVersion.rawValue + "|scope=") }.map {
                String($0.dropFirst(MetricName.controlVersion.rawValue.count + 7))
            }
        }
        for scope in Set(shown).union(overrides.keys) { gauge(.controlVersion, ("scope", scope)).record(overrides[scope] ?? 0) }
    }

    private func dimensions(_ labels: [(String, String)]) -> [(String, String)] { [("pipeline", pipeline)] + labels }

    private func key(_ name: MetricName, _ labels: [(String, String)]) -> String {
        var key = name.rawValue
        for (label, value) in labels { key += "|" + label + "=" + value }
        return key
    }

    private func counter(_ name: MetricName, _ labels: (String, String)...) -> Counter {
        Self.made(key(name, labels), in: counters) { Counter(label: name.rawValue, dimensions: dimensions(labels)) }
    }

    private func gauge(_ name: MetricName, _ labels: (String, String)...) -> Gauge {
        Self.made(key(name, labels), in: gauges) { Gauge(label: name.rawValue, dimensions: dimensions(labels)) }
    }

    private func timer(_ name: MetricName, _ labels: (String, String)...) -> Metrics.Timer {
        Self.made(key(name, labels), in: timers) { Metrics.Timer(label: name.rawValue, dimensions: dimensions(labels)) }
    }

    /// The metric stored under `key`, made (once) by `make` when there is none yet.
    private static func made<M>(_ key: String, in store: borrowing Mutex<[String: M]>, _ make: () -> M) -> M {
        store.withLock { metrics in
            if let metric = metrics[key] { return metric }
            let metric = make()
            metrics[key] = metric
            return metric
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

extension InstanceAPIError {
    /// The HTTP status the failure came with, as a metric label (`none` when there was no answer).
    var statusLabel: String {
        switch self {
        case .badRequest: "400"
        case .unauthenticated: "401"
        case .permissionDenied: "403"
        case .throttled: "429"
        case .serverError(_, let status, _, _), .malformedResponse(_, let status, _): "\(status)"
        case .transport, .timedOut, .credentials, .invalidArgument: "none"
        }
    }
}
