import Metrics
import Pipeline
import Prometheus

/// swift-metrics into swift-prometheus's registry, as `PrometheusMetricsFactory` does, but each
/// metric gets its `# HELP` text (and a histogram its buckets) from `MetricName`, their one
/// owner. A metric no `MetricName` names (a library's) still gets a HELP line that says so.
struct DescribedMetricsFactory: MetricsFactory {
    /// Where the metrics are registered, and /metrics reads them.
    let registry: PrometheusCollectorRegistry
    /// Destroys what this factory made (its handlers are the registry's own types).
    private let prometheus: PrometheusMetricsFactory

    /// A factory registering in `registry`.
    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        prometheus = PrometheusMetricsFactory(registry: registry)
    }

    /// The name, HELP text and duration buckets of the metric swift-metrics calls `label`.
    private func descriptor(_ label: String) -> (descriptor: MetricNameDescriptor, buckets: [Duration]) {
        let name = MetricName(rawValue: label)
        let help = name?.help ?? "\(label): a library's metric (iidbatch does not describe it)."
        return (MetricNameDescriptor(metricName: label, unitName: "", helpText: help), name?.buckets ?? prometheus.defaultDurationHistogramBuckets)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label).descriptor, labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label).descriptor, labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label).descriptor, labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label).descriptor, labels: dimensions, buckets: prometheus.defaultValueHistogramBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label).descriptor, labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let (descriptor, buckets) = descriptor(label)
        return registry.makeDurationHistogram(descriptor: descriptor, labels: dimensions, buckets: buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { prometheus.destroyCounter(handler) }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { prometheus.destroyFloatingPointCounter(handler) }

    func destroyRecorder(_ handler: any RecorderHandler) { prometheus.destroyRecorder(handler) }

    func destroyMeter(_ handler: any MeterHandler) { prometheus.destroyMeter(handler) }

    func destroyTimer(_ handler: any TimerHandler) { prometheus.destroyTimer(handler) }
}
