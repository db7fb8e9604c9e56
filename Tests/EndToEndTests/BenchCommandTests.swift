import Foundation
import Testing

/// The worker benchmarks, on a few thousand items: they finish (waiting on the worker's events,
/// not on a timer) and print every figure they promise. Their figures are not judged here.
@Suite("iidbatch bench pipeline, bench worker and bench quota, as a user runs them", .serialized)
struct BenchCommandTests {
    @Test("bench pipeline waits for the last outcome and prints items/s, calls and the ratio to the raw ceiling")
    func benchPipeline() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "pipeline", "--items", "6000", "--tokens-per-request", "500", "--partitions", "2"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("pipeline:") }, "\(result.output)")
        #expect(line.contains("(12 requests, "), "every request's outcome was counted: \(line)")
        #expect(result.output.contains("ratio:"), "\(result.output)")
    }

    @Test("bench worker runs a worker process per shape and prints its CPU, RSS, latency and how full its calls were")
    func benchWorker() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "worker", "--shapes", "topics-100", "deletions-3", "imports-100", "--items", "1500"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        let topics = try #require(lines.first { $0.hasPrefix("topics-100:") }, "\(result.output)")
        #expect(
            topics.contains("15 requests, 1500 items") && topics.contains("CPU-s per million items") && topics.contains("peak RSS")
                && topics.contains(" s (system "), "\(topics)")
        // The processes it started beside the worker, with their CPU in the same window.
        let beside = try #require(lines.first { $0.contains("beside it") }, "\(result.output)")
        #expect(beside.contains("broker ") && beside.contains("emulator ") && beside.hasSuffix("CPU-s per million items"), "\(beside)")
        let deletions = try #require(lines.first { $0.hasPrefix("deletions-3:") }, "\(result.output)")
        // One call per installation: the emulator counted 1,500 calls of one item each.
        #expect(deletions.contains("1500 backend calls, 1 items per call"), "\(deletions)")
        // Every shape's items succeed: imports send APNs device tokens, which the emulator imports.
        let results = lines.filter { $0.hasPrefix("  items by result: ") }
        #expect(results.count == 3 && results.allSatisfy { $0.hasSuffix(": OK 1500") }, "\(result.output)")
    }

    @Test("bench quota runs its workers in one group until the end and prints the share of the quota they used")
    func benchQuota() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "quota", "--workers", "2", "--seconds", "6", "--warm-up", "2", "--partitions", "4"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("2 worker process(es)"), "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("at quota 40.0:") }, "\(result.output)")
        #expect(line.contains("of the quota") && line.contains("of attempts throttled"), "\(line)")
        #expect(result.output.contains("items dead-lettered: 0"), "\(result.output)")
    }
}
