import Foundation
import InstanceAPI
import MetricsTestKit
import Testing

@testable import Pipeline

/// What alert rules need of the worker's metrics (issue 32): counters that exist from the start,
/// throttled attempts counted once, and a HELP text and fitting buckets for every metric.
@Suite("Worker metrics for alert rules")
struct WorkerMetricsStartTests {
    @Test("every dead-letter kind, each op's success codes and each API's throttled attempts exist at 0 from the start")
    func countersStartAtZero() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "deletions", factory: factory)
        metrics.startAtZero(ops: [.installationsDelete, .instancesInfo], apis: [BackendAPI.deleteInstance])
        for kind in ["retry-exhausted", "undecodable", "duplicate-in-flight"] {
            #expect(try factory.expectCounter(MetricName.deadLetters.rawValue, [("pipeline", "deletions"), ("kind", kind)]).totalValue == 0)
        }
        for op in ["installations.delete", "instances.info"] {
            for code in ["OK", "ALREADY_ABSENT"] {
                #expect(
                    try factory.expectCounter(MetricName.items.rawValue, [("pipeline", "deletions"), ("op", op), ("code", code)]).totalValue == 0)
            }
        }
        #expect(factory.counters(label: MetricName.items.rawValue).count == 4, "only the success codes: failures are not made in advance")
        #expect(
            try factory.expectCounter(MetricName.throttledAttempts.rawValue, [("pipeline", "deletions"), ("api", BackendAPI.deleteInstance.rawValue)])
                .totalValue == 0)
        // The first success counts on the series made at the start.
        var statistics = WorkerStatistics()
        statistics.notePublished(
            Outcome(
                requestID: "r", op: .installationsDelete, target: [:], status: .succeeded, counts: ["OK": 1], failedItems: [], backendCalls: 1,
                receivedAt: Date(), completedAt: Date()), deadLetter: nil, latency: .seconds(1))
        metrics.follow(statistics)
        #expect(
            try factory.expectCounter(MetricName.items.rawValue, [("pipeline", "deletions"), ("op", "installations.delete"), ("code", "OK")])
                .totalValue == 1)
    }

    @Test("throttled attempts follow each API's adaptive rate, counting each throttling answer once")
    func throttledAttempts() throws {
        let factory = TestMetrics()
        let metrics = WorkerMetrics(pipeline: "p", factory: factory)
        let now = ContinuousClock.now
        var rate = AdaptiveRate(AdaptiveRate.Settings())
        rate.throttled(startedAt: now, now: now)
        rate.throttled(startedAt: now - .seconds(1), now: now)  // answered after the cut: counted, not cut again
        metrics.state(itemsInFlight: 0, pausedPartitions: 0, breakerOpen: false, rates: [.batchAdd: rate], concurrencyLimits: [:])
        metrics.state(itemsInFlight: 0, pausedPartitions: 0, breakerOpen: false, rates: [.batchAdd: rate], concurrencyLimits: [:])  // no new answer
        let series = [("pipeline", "p"), ("api", BackendAPI.batchAdd.rawValue)]
        #expect(try factory.expectCounter(MetricName.throttledAttempts.rawValue, series).totalValue == 2)
        rate.throttled(startedAt: now, now: now + .seconds(1))
        metrics.state(itemsInFlight: 0, pausedPartitions: 0, breakerOpen: false, rates: [.batchAdd: rate], concurrencyLimits: [:])
        #expect(try factory.expectCounter(MetricName.throttledAttempts.rawValue, series).totalValue == 3)
    }

    @Test("every metric has a one-line HELP text; request durations have buckets up to 30 minutes")
    func helpAndBuckets() throws {
        for name in MetricName.allCases {
            #expect(!name.help.isEmpty && !name.help.contains("\n"), "\(name.rawValue)")
        }
        #expect(Set(MetricName.allCases.map(\.help)).count == MetricName.allCases.count, "each HELP says what its own metric is")
        let buckets = try #require(MetricName.requestDuration.buckets)
        #expect(buckets.last == .seconds(1800))
        #expect(buckets.contains { $0 > .seconds(10) && $0 <= .seconds(30) }, "the demo's p99 (21 s) falls in a bucket of its own size")
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 && $1 <= $0 * 4 }, "ascending, each at most 4 × the one before")
    }

    @Test("a pipeline's ops and APIs: those its file lists, or every one")
    func opsAndAPIs() {
        var configuration = PipelineConfiguration(
            name: "p", requestTopic: "r", group: "g", outcomeTopic: "o", deadLetterTopic: "d")
        #expect(configuration.takenOps == RequestOp.allCases)
        configuration.ops = [.topicsSubscribe, .installationsDelete]
        #expect(configuration.takenOps == [.installationsDelete, .topicsSubscribe])
        #expect(configuration.apis == [.deleteInstance, .batchAdd])
    }
}
