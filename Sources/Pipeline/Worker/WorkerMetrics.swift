import InstanceAPI
import Metrics
import Synchronization

/// A worker's metrics through swift-metrics (Prometheus names: `_total`, `_seconds`, base units;
/// every metric labelled with its `pipeline`). Without a metrics backend they cost next to nothing.
/// Each metric name always has the same label names, and each labelled series is made once.
final class WorkerMetrics: Sendable {
    private let pipeline: String
    private let factory: any MetricsFactory
    private let counters = Mutex<[Series: Counter]>([:])
    private let gauges = Mutex<[Series: Gauge]>([:])
    private let timers = Mutex<[Series: Metrics.Timer]>([:])
    /// The gauges set after every event, made once.
    private let itemsInFlight: Gauge
    private let pausedPartitions: Gauge
    private let circuitBreakerOpen: Gauge

    /// Metrics of pipeline `pipeline`, made by `factory` (the process's metrics backend unless a
    /// test passes its own).
    init(pipeline: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.pipeline = pipeline
        self.factory = factory
        itemsInFlight = Gauge(label: MetricName.itemsInFlight.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
        pausedPartitions = Gauge(label: MetricName.pausedPartitions.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
        circuitBreakerOpen = Gauge(label: MetricName.circuitBreakerOpen.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
    }

    /// A record was read from the request topic.
    func recordConsumed() { counter(.recordsConsumed).increment() }

    /// An outcome was acknowledged: the request's status and its items' final codes.
    func outcomePublished(op: String, status: String, codes: [String: Int], latency: Duration) {
        counter(.requests, ("op", op), ("status", status)).increment()
        // A code the taxonomy does not know counts as UNKNOWN: its verbatim text (which a backend
        // may fill with a token) would make a series per text.
        for (code, count) in codes { counter(.items, ("op", op), ("code", code.hasPrefix("UNKNOWN(") ? "UNKNOWN" : code)).increment(by: count) }
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
        let shown = gauges.withLock { gauges in gauges.keys.filter { $0.name == .controlVersion }.map(\.first) }
        for scope in Set(shown).union(overrides.keys) { gauge(.controlVersion, ("scope", scope)).record(overrides[scope] ?? 0) }
    }

    /// One labelled series of a metric: its name and the values of its (at most two) labels. A
    /// name always has the same label names, so the values tell its series apart; looking one up
    /// builds no text.
    private struct Series: Hashable {
        let name: MetricName
        let first: String
        let second: String

        init(_ name: MetricName, _ first: (String, String)?, _ second: (String, String)?) {
            self.name = name
            self.first = first?.1 ?? ""
            self.second = second?.1 ?? ""
        }
    }

    private func dimensions(_ first: (String, String)?, _ second: (String, String)?) -> [(String, String)] {
        [("pipeline", pipeline)] + [first, second].compactMap { $0 }
    }

    private func counter(_ name: MetricName, _ first: (String, String)? = nil, _ second: (String, String)? = nil) -> Counter {
        Self.made(Series(name, first, second), in: counters) { Counter(label: name.rawValue, dimensions: dimensions(first, second), factory: factory) }
    }

    private func gauge(_ name: MetricName, _ first: (String, String)? = nil, _ second: (String, String)? = nil) -> Gauge {
        Self.made(Series(name, first, second), in: gauges) { Gauge(label: name.rawValue, dimensions: dimensions(first, second), factory: factory) }
    }

    private func timer(_ name: MetricName, _ first: (String, String)? = nil, _ second: (String, String)? = nil) -> Metrics.Timer {
        Self.made(Series(name, first, second), in: timers) {
            Metrics.Timer(label: name.rawValue, dimensions: dimensions(first, second), factory: factory)
        }
    }

    /// The metric stored under `series`, made (once) by `make` when there is none yet.
    private static func made<M>(_ series: Series, in store: borrowing Mutex<[Series: M]>, _ make: () -> M) -> M {
        store.withLock { metrics in
            if let metric = metrics[series] { return metric }
            let metric = make()
            metrics[series] = metric
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
        case .serverError(_, let status, _, _), .malformedResponse(_, let status, _), .unexpectedAnswer(_, let status, _): "\(status)"
        case .transport, .timedOut, .credentials, .invalidArgument: "none"
        }
    }
}
