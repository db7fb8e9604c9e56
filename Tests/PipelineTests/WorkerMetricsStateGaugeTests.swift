import InstanceAPI
import MetricsTestKit
import Testing

@testable import Pipeline

/// The worker reports its state after every event: each state gauge records a value only when
/// it changed, and shows the latest value whatever was skipped.
@Suite("Worker metrics: state gauges record changes only")
struct WorkerMetricsStateGaugeTests {
    @Test("the same state reported again records nothing; a change records the new value of that series only")
    func changesOnly() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        let rate = AdaptiveRate(AdaptiveRate.Settings(ceiling: 500))
        for _ in 0..<3 {
            metrics.state(
                itemsInFlight: 5, pausedPartitions: 0, breakerOpen: false, rates: [.fcmSubscribe: rate],
                concurrencyLimits: [.fcmSubscribe: 32, .batchAdd: 4])
        }
        metrics.state(
            itemsInFlight: 6, pausedPartitions: 0, breakerOpen: true, rates: [.fcmSubscribe: rate], concurrencyLimits: [.fcmSubscribe: 33, .batchAdd: 4])
        let pipeline = [("pipeline", "p")]
        func api(_ api: BackendAPI) -> [(String, String)] { pipeline + [("api", api.rawValue)] }
        #expect(try factory.expectGauge(MetricName.itemsInFlight.rawValue, pipeline).values == [5, 6])
        #expect(try factory.expectGauge(MetricName.pausedPartitions.rawValue, pipeline).values == [0])
        #expect(try factory.expectGauge(MetricName.circuitBreakerOpen.rawValue, pipeline).values == [0, 1])
        #expect(try factory.expectGauge(MetricName.rate.rawValue, api(.fcmSubscribe)).values == [500])
        #expect(try factory.expectGauge(MetricName.concurrencyLimit.rawValue, api(.fcmSubscribe)).values == [32, 33])
        #expect(try factory.expectGauge(MetricName.concurrencyLimit.rawValue, api(.batchAdd)).values == [4])
    }
}
