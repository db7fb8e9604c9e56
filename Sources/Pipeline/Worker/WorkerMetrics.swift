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
    /// The gauges set at every scrape (`PipelineWorker.refreshMetrics()`), made once.
    private let itemsInFlight: Gauge
    private let pausedPartitions: Gauge
    private let circuitBreakerOpen: Gauge
    /// What the state gauges last recorded, and the throttling answers of each API already
    /// counted. The worker reports its state at every scrape; a value unchanged since is not
    /// recorded again, so a scrape that changes none of them costs one lock and a comparison, not
    /// a lookup and a record for each series.
    private let shown = Mutex(Shown())

    /// What `state(...)` last recorded and counted.
    private struct Shown: Sendable {
        var itemsInFlight: Int?
        var pausedPartitions: Int?
        var breakerOpen: Bool?
        var paces: [BackendAPI: Double] = [:]
        var limits: [BackendAPI: Int] = [:]
        /// The throttling answers counted per API (`AdaptiveRate.throttles` is the count).
        var throttles: [BackendAPI: Int] = [:]
    }
    /// The figures the counters last followed: only those, not the whole statistics, whose
    /// latency histogram the snapshot would otherwise share and copy on the next outcome.
    private let followed = Mutex(Followed())

    /// The counted figures of `WorkerStatistics` the counters follow.
    private struct Followed: Sendable {
        var records = 0
        var retries = 0
        var outcomes: [String: [OutcomeStatus: Int]] = [:]
        var itemCodes: [String: [String: Int]] = [:]
        var deadLetterKinds: [String: Int] = [:]
        var callAnswers: [String: [String: Int]] = [:]
        var batches = RecentBatches()

        init() {}

        init(_ statistics: WorkerStatistics) {
            records = statistics.records
            retries = statistics.retries
            outcomes = statistics.outcomes
            itemCodes = statistics.itemCodes
            deadLetterKinds = statistics.deadLetterKinds
            callAnswers = statistics.callAnswers
            batches = statistics.batches
        }
    }

    /// Metrics of pipeline `pipeline`, made by `factory` (the process's metrics backend unless a
    /// test passes its own).
    init(pipeline: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.pipeline = pipeline
        self.factory = factory
        itemsInFlight = Gauge(label: MetricName.itemsInFlight.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
        pausedPartitions = Gauge(label: MetricName.pausedPartitions.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
        circuitBreakerOpen = Gauge(label: MetricName.circuitBreakerOpen.rawValue, dimensions: [("pipeline", pipeline)], factory: factory)
    }

    /// Makes, at 0, the counters alert rules compare with an earlier sample, so that the first
    /// event after a start is an increase: every dead-letter kind, the success codes of each op in
    /// `ops`, and the throttled attempts of each API in `apis`. A counter born at its first event
    /// has no earlier sample, and `increase()` or `rate()` over it shows nothing.
    func startAtZero(ops: [RequestOp], apis: some Sequence<BackendAPI>) {
        for kind in DeadLetter.Kind.allCases { _ = counter(.deadLetters, ("kind", kind.rawValue)) }
        for op in ops {
            for code in ResultCode.known where code.isSuccess { _ = counter(.items, ("op", op.rawValue), ("code", code.rawValue)) }
        }
        for api in apis { _ = counter(.throttledAttempts, ("api", api.rawValue)) }
    }

    /// Counts what `statistics` counted since the last call: records read, requests by op and
    /// status, items by op and final code, dead letters by kind, call attempts by API and status,
    /// item retries. The statistics are the one count of each event; the counters follow them.
    /// A code the taxonomy does not know counts as UNKNOWN: its verbatim text (which a backend may
    /// fill with a token) would make a series per text.
    func follow(_ statistics: WorkerStatistics) {
        let previous = followed.withLock { followed in
            defer { followed = Followed(statistics) }
            return followed
        }
        if statistics.records > previous.records { counter(.recordsConsumed).increment(by: statistics.records - previous.records) }
        if statistics.retries > previous.retries { counter(.itemRetries).increment(by: statistics.retries - previous.retries) }
        if statistics.outcomes != previous.outcomes {
            for (op, statuses) in statistics.outcomes {
                for (status, count) in statuses {
                    let added = count - (previous.outcomes[op]?[status] ?? 0)
                    if added > 0 { counter(.requests, ("op", Self.opLabel(op)), ("status", status.rawValue)).increment(by: added) }
                }
            }
        }
        if statistics.itemCodes != previous.itemCodes {
            for (op, codes) in statistics.itemCodes {
                for (code, count) in codes {
                    let added = count - (previous.itemCodes[op]?[code] ?? 0)
                    if added > 0 {
                        counter(.items, ("op", Self.opLabel(op)), ("code", code)).increment(by: added)
                    }
                }
            }
        }
        for (kind, count) in statistics.deadLetterKinds where count > previous.deadLetterKinds[kind] ?? 0 {
            counter(.deadLetters, ("kind", kind)).increment(by: count - (previous.deadLetterKinds[kind] ?? 0))
        }
        if statistics.batches != previous.batches { followBatches(statistics.batches, previous.batches) }
        if statistics.callAnswers != previous.callAnswers {
            for (api, statuses) in statistics.callAnswers {
                for (status, count) in statuses {
                    let added = count - (previous.callAnswers[api]?[status] ?? 0)
                    if added > 0 { counter(.callAttempts, ("api", api), ("status", status)).increment(by: added) }
                }
            }
        }
    }

    /// Counts what each recent batch gained, and removes the series of batches no longer recent,
    /// or forgotten and taken in again since the last look (their counts started again).
    private func followBatches(_ batches: RecentBatches, _ previous: RecentBatches) {
        let restarted = Set(previous.tallies.keys.filter { batches.tallies[$0]?.takenIn != previous.tallies[$0]?.takenIn })
        if !restarted.isEmpty {
            let removed = counters.withLock { counters in
                let series = counters.keys.filter { [.batchRequests, .batchItems].contains($0.name) && restarted.contains($0.first) }
                return series.compactMap { counters.removeValue(forKey: $0) }
            }
            for counter in removed { counter.destroy() }
        }
        for (batch, tally) in batches.tallies {
            let before = restarted.contains(batch) ? RecentBatches.Tally() : previous.tallies[batch] ?? RecentBatches.Tally()
            for (status, count) in tally.requests where count > before.requests[status] ?? 0 {
                counter(.batchRequests, ("batch", batch), ("status", status.rawValue)).increment(by: count - (before.requests[status] ?? 0))
            }
            if tally.items > before.items { counter(.batchItems, ("batch", batch)).increment(by: tally.items - before.items) }
        }
    }

    /// A request's outcome was acknowledged `latency` after it arrived.
    func observeRequest(latency: Duration) {
        timer(.requestDuration).recordNanoseconds(Self.nanoseconds(latency))
    }

    /// A call attempt of `api` took `duration`, start to answer.
    func observeCall(api: String, duration: Duration) {
        timer(.callDuration, ("api", api)).recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The label of an op as statistics name it (`?` for a rejected record without one).
    private static func opLabel(_ op: String) -> String { op == "?" ? "none" : op }

    /// The state the gauges show: an API's rate while it has a pace (unpaced without a ceiling it
    /// has none), and the calls in flight each API may have.
    func state(
        itemsInFlight: Int, pausedPartitions: Int, breakerOpen: Bool, rates: [BackendAPI: AdaptiveRate], concurrencyLimits: [BackendAPI: Int]
    ) {
        // An unpaced API shows 0 (no pace), not the last pace it had before an operator lifted
        // its ceiling.
        let (items, paused, breaker, paces, limits, throttled) = shown.withLock { shown in
            defer {
                shown.itemsInFlight = itemsInFlight
                shown.pausedPartitions = pausedPartitions
                shown.breakerOpen = breakerOpen
            }
            let paces = rates.compactMap { api, rate -> (BackendAPI, Double)? in
                let pace = rate.pace ?? 0
                guard shown.paces.updateValue(pace, forKey: api) != pace else { return nil }
                return (api, pace)
            }
            let limits = concurrencyLimits.filter { api, limit in shown.limits.updateValue(limit, forKey: api) != limit }
            // The rate counts every throttled attempt once; the counter follows it.
            let throttled = rates.compactMap { api, rate -> (BackendAPI, Int)? in
                let added = rate.throttles - shown.throttles[api, default: 0]
                guard added > 0 else { return nil }
                shown.throttles[api] = rate.throttles
                return (api, added)
            }
            return (
                shown.itemsInFlight != itemsInFlight, shown.pausedPartitions != pausedPartitions, shown.breakerOpen != breakerOpen, paces, limits,
                throttled
            )
        }
        if items { self.itemsInFlight.record(itemsInFlight) }
        if paused { self.pausedPartitions.record(pausedPartitions) }
        if breaker { circuitBreakerOpen.record(breakerOpen ? 1 : 0) }
        for (api, pace) in paces { gauge(.rate, ("api", api.rawValue)).record(pace) }
        for (api, limit) in limits { gauge(.concurrencyLimit, ("api", api.rawValue)).record(limit) }
        for (api, added) in throttled { counter(.throttledAttempts, ("api", api.rawValue)).increment(by: added) }
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
    /// The HTTP status the failure came with, as a metric label (`none` when there was no answer;
    /// `withdrawn` when not sent; `every_item_failed` for a 200 whose every item says the backend
    /// failed, which the successes' `200` would hide).
    var statusLabel: String {
        switch self {
        case .withdrawn: "withdrawn"
        case .failedEveryItem: "every_item_failed"
        default: answerStatus.map { "\($0)" } ?? "none"
        }
    }
}
