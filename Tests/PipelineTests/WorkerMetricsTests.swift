import Foundation
import InstanceAPI
import MetricsTestKit
import Testing

@testable import Pipeline

@Suite("Worker metrics")
struct WorkerMetricsTests {
    @Test("each labelled series is made once and counts what it is told, under the pipeline's label")
    func seriesMadeOnce() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        var statistics = WorkerStatistics()
        let partial = Outcome(
            requestID: "r", op: .topicsSubscribe, target: [:], status: .partial, counts: ["OK": 2, "NOT_FOUND": 1], failedItems: [], backendCalls: 1,
            receivedAt: Date(), completedAt: Date())
        for _ in 0..<3 {
            statistics.notePublished(partial, deadLetter: nil, latency: .milliseconds(5))
            metrics.follow(statistics)
        }
        var succeeded = partial
        succeeded.status = .succeeded
        succeeded.counts = ["OK": 4]
        statistics.notePublished(succeeded, deadLetter: nil, latency: .milliseconds(5))
        statistics.callAnswers = ["iid-batch": ["200": 1, "429": 1]]
        metrics.follow(statistics)
        metrics.follow(statistics)  // nothing new: nothing counted again
        let requests = MetricName.requests.rawValue
        let items = MetricName.items.rawValue
        #expect(try factory.expectCounter(requests, [("pipeline", "p"), ("op", "topics.subscribe"), ("status", "partial")]).totalValue == 3)
        #expect(try factory.expectCounter(requests, [("pipeline", "p"), ("op", "topics.subscribe"), ("status", "succeeded")]).totalValue == 1)
        #expect(try factory.expectCounter(items, [("pipeline", "p"), ("op", "topics.subscribe"), ("code", "OK")]).totalValue == 10)
        #expect(try factory.expectCounter(items, [("pipeline", "p"), ("op", "topics.subscribe"), ("code", "NOT_FOUND")]).totalValue == 3)
        let attempts = MetricName.callAttempts.rawValue
        #expect(try factory.expectCounter(attempts, [("pipeline", "p"), ("api", "iid-batch"), ("status", "429")]).totalValue == 1)
        #expect(factory.counters.count == 6, "requests ×2, items ×2, attempts ×2: \(factory.counters.map(\.dimensions))")
    }

    @Test("a control scope reset to its file shows version 0 instead of disappearing")
    func controlVersions() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        let version = MetricName.controlVersion.rawValue
        metrics.control(paused: true, overrides: ["all": 2, "p": 5])
        #expect(try factory.expectGauge(version, [("pipeline", "p"), ("scope", "p")]).lastValue == 5)
        #expect(try factory.expectGauge(MetricName.controlPaused.rawValue, [("pipeline", "p")]).lastValue == 1)
        metrics.control(paused: false, overrides: ["all": 3])
        #expect(try factory.expectGauge(version, [("pipeline", "p"), ("scope", "p")]).lastValue == 0)
        #expect(try factory.expectGauge(version, [("pipeline", "p"), ("scope", "all")]).lastValue == 3)
    }
}
