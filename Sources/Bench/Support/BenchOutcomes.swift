import Foundation
import Kafka
import Pipeline

/// The outcomes a worker under benchmark wrote, read until every request has one: when the
/// worker received its first record, when the last outcome was read, each request's latency,
/// the items by result code, and the worker's peak memory seen meanwhile.
struct BenchOutcomes {
    /// The earliest `receivedAt` of the outcomes: the worker's first received record.
    var firstReceived: Date?
    /// When the last outcome was read.
    var finished = Date()
    /// Each request's receipt to its outcome, seconds, sorted.
    var latencies: [Double] = []
    /// Items by result code, as the outcomes report them.
    var results: [String: Int] = [:]
    /// The worker's largest VmHWM seen while reading, MiB.
    var peakMiB = 0.0

    /// Reads `reader` until `count` outcomes came, sampling `worker`'s memory every 100.
    static func read(_ reader: KafkaTopicReader, count: Int, worker: BenchChild) async throws -> BenchOutcomes {
        var outcomes = BenchOutcomes()
        outcomes.latencies.reserveCapacity(count)
        let decoder = Outcome.decoder()
        for try await record in reader.records {
            guard let value = record.value, let outcome = Outcome.read(value, using: decoder) else { continue }
            outcomes.results.merge(outcome.counts, uniquingKeysWith: +)
            outcomes.firstReceived = min(outcomes.firstReceived ?? outcome.receivedAt, outcome.receivedAt)
            outcomes.latencies.append(outcome.completedAt.timeIntervalSince(outcome.receivedAt))
            if outcomes.latencies.count % 100 == 0 { outcomes.peakMiB = max(outcomes.peakMiB, worker.usage?.peakResidentMiB ?? 0) }
            if outcomes.latencies.count == count { break }
        }
        outcomes.finished = Date()
        outcomes.latencies.sort()
        return outcomes
    }

    /// Seconds from the worker's first received record to the last outcome.
    var seconds: Double { finished.timeIntervalSince(firstReceived ?? finished) }

    /// The latency below which a share `p` of the requests finished, milliseconds.
    func percentile(_ p: Double) -> Double {
        latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1_000
    }

    /// The items by result, most first: so that a run whose items all fail is not taken for a
    /// fast one.
    var resultsLine: String {
        "  items by result: " + results.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
