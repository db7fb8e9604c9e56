import InstanceAPI
import MetricsTestKit
import Testing

@testable import Pipeline

/// Issue 33's review: the rate gauge of an unpaced API follows its ceiling, and an operator who
/// lifts the ceiling sees 0, not the last ceiling, for as long as the API stays unpaced.
@Suite("Worker metrics: the rate gauge of an unpaced API")
struct WorkerMetricsRateGaugeTests {
    @Test("unpaced with a ceiling the gauge shows it; with the ceiling lifted, 0")
    func unpacedGauge() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        var rate = AdaptiveRate(AdaptiveRate.Settings(ceiling: 3_000))
        metrics.state(itemsInFlight: 0, pausedPartitions: 0, breakerOpen: false, rates: [.fcmSubscribe: rate], concurrencyLimits: [.fcmSubscribe: 32])
        let series = [("pipeline", "p"), ("api", BackendAPI.fcmSubscribe.rawValue)]
        #expect(try factory.expectGauge(MetricName.rate.rawValue, series).lastValue == 3_000)
        #expect(try factory.expectGauge(MetricName.concurrencyLimit.rawValue, series).lastValue == 32)
        rate.reconfigure(AdaptiveRate.Settings())
        metrics.state(itemsInFlight: 0, pausedPartitions: 0, breakerOpen: false, rates: [.fcmSubscribe: rate], concurrencyLimits: [.fcmSubscribe: 32])
        #expect(try factory.expectGauge(MetricName.rate.rawValue, series).lastValue == 0, "no pace: 0, not the lifted ceiling")
    }
}
