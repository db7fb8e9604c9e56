import Foundation
import InstanceAPI
import MetricsTestKit
import Testing

@testable import Pipeline

/// Per-batch metrics: counted per batch and status, and bounded to the recent batches.
@Suite("Worker metrics per batch, for the recent batches only")
struct WorkerMetricsBatchTests {
    private func outcome(_ batch: String?, _ status: OutcomeStatus, items: Int) -> Outcome {
        Outcome(
            requestID: "r", op: .installationsDelete, target: [:], status: status, counts: items > 0 ? ["OK": items] : [:], failedItems: [],
            batch: batch, backendCalls: 1, receivedAt: Date(), completedAt: Date())
    }

    @Test("requests by batch and status, items by batch; a request without a batch makes no batch series")
    func countedPerBatch() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        var statistics = WorkerStatistics()
        for (batch, status, items) in [("gdpr-1", OutcomeStatus.succeeded, 2), ("gdpr-1", .cancelled, 3), ("gdpr-1", .succeeded, 1), (nil, .succeeded, 5)] {
            statistics.notePublished(outcome(batch, status, items: items), deadLetter: nil, latency: .milliseconds(1))
            metrics.follow(statistics)
        }
        let requests = MetricName.batchRequests.rawValue
        #expect(try factory.expectCounter(requests, [("pipeline", "p"), ("batch", "gdpr-1"), ("status", "succeeded")]).totalValue == 2)
        #expect(try factory.expectCounter(requests, [("pipeline", "p"), ("batch", "gdpr-1"), ("status", "cancelled")]).totalValue == 1)
        #expect(try factory.expectCounter(MetricName.batchItems.rawValue, [("pipeline", "p"), ("batch", "gdpr-1")]).totalValue == 6)
        #expect(factory.counters.filter { $0.label.hasPrefix("iidbatch_batch_") }.count == 3)
    }

    @Test("past the limit the least recently active batch is forgotten and its series removed: at most limit batches have series")
    func bounded() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        var statistics = WorkerStatistics()
        let total = RecentBatches.limit + 5
        for n in 0..<total {
            statistics.notePublished(outcome("b\(n)", .succeeded, items: 1), deadLetter: nil, latency: .milliseconds(1))
            // b0 stays active: it is never the least recent.
            statistics.notePublished(outcome("b0", .succeeded, items: 1), deadLetter: nil, latency: .milliseconds(1))
            metrics.follow(statistics)
        }
        #expect(statistics.batches.tallies.count == RecentBatches.limit)
        #expect(statistics.batches.tallies["b0"] != nil && statistics.batches.tallies["b1"] == nil && statistics.batches.tallies["b\(total - 1)"] != nil)
        // The test factory lists the series made and not destroyed.
        let live = Set(factory.counters.filter { $0.label == MetricName.batchItems.rawValue }.compactMap { $0.dimensions.first { $0.0 == "batch" }?.1 })
        #expect(live == Set(statistics.batches.tallies.keys), "series of exactly the recent batches: \(live.sorted())")
        #expect(factory.counters.filter { $0.label == MetricName.batchRequests.rawValue }.count == RecentBatches.limit)
    }

    @Test("a batch forgotten and taken in again between two looks starts its series again instead of standing still")
    func retakenBatchRestarts() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        var statistics = WorkerStatistics()
        for _ in 0..<5 { statistics.notePublished(outcome("b0", .succeeded, items: 1), deadLetter: nil, latency: .zero) }
        for n in 1..<RecentBatches.limit { statistics.notePublished(outcome("b\(n)", .succeeded, items: 1), deadLetter: nil, latency: .zero) }
        metrics.follow(statistics)
        // b0 is forgotten (the least recent) and taken in again, with 1 item, before the next look.
        statistics.notePublished(outcome("b-new", .succeeded, items: 1), deadLetter: nil, latency: .zero)
        statistics.notePublished(outcome("b0", .succeeded, items: 1), deadLetter: nil, latency: .zero)
        metrics.follow(statistics)
        let items = factory.counters.filter { $0.label == MetricName.batchItems.rawValue && $0.dimensions.contains { $0 == ("batch", "b0") } }
        #expect(items.count == 1 && items.first?.totalValue == 1, "b0's series counts what it has now: \(items.map(\.totalValue))")
        #expect(statistics.batches.tallies["b1"] == nil, "b1 was forgotten in its place")
    }
}

extension WorkerMetricsBatchTests {
    @Test("items of codes a backend words without bound are counted under UNKNOWN: one entry, however many texts")
    func unknownCodesFolded() throws {
        var statistics = WorkerStatistics()
        for n in 0..<1_000 {
            let outcome = Outcome(
                requestID: "r\(n)", op: .topicsSubscribe, target: [:], status: .failed, counts: ["UNKNOWN(E-\(n))": 1, "OK": 2], failedItems: [],
                batch: nil, backendCalls: 1, receivedAt: Date(), completedAt: Date())
            statistics.notePublished(outcome, deadLetter: nil, latency: .milliseconds(1))
        }
        #expect(statistics.itemCodes == ["topics.subscribe": ["UNKNOWN": 1_000, "OK": 2_000]])
    }
}
