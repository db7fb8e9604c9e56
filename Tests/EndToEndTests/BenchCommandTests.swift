import Foundation
import Testing

/// The worker benchmarks, on a few thousand items: they finish (waiting on the worker's events,
/// not on a timer) and print every figure they promise. Their figures are not judged here.
@Suite("iidbatch bench pipeline, bench worker, bench quota, bench field and bench client, as a user runs them", .serialized, .heavy)
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

    @Test("bench worker runs each shape's shipped pipeline file in a worker process and prints its CPU, RSS, latency, calls and overrides")
    func benchWorker() async throws {
        // topics-100 on the iid-batch backend (an override), deletions and imports as shipped.
        let result = try await ChildProcess.run(
            try Programs.iidbatch,
            ["bench", "worker", "--shapes", "topics-100", "deletions-3", "imports-100", "--items", "3000", "--topic-backend", "iid-batch"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        let topics = try #require(lines.first { $0.hasPrefix("topics-100:") }, "\(result.output)")
        #expect(
            topics.contains("30 requests, 3000 items") && topics.contains("CPU-s per million items") && topics.contains("µs per call")
                && topics.contains("peak RSS") && topics.contains(" s (system "), "\(topics)")
        // The override is named; the shapes run as shipped say so.
        #expect(topics.hasSuffix("shipped pipelines/topic-changes.yaml, unchanged but for topic names; overrides: backend=iid-batch"), "\(topics)")
        #expect(topics.contains("30 backend calls, 100 items per call"), "\(topics)")
        // The processes it started beside the worker, with their CPU in the same window.
        let beside = try #require(lines.first { $0.contains("beside it") }, "\(result.output)")
        #expect(beside.contains("broker ") && beside.contains("emulator ") && beside.hasSuffix("CPU-s per million items"), "\(beside)")
        let deletions = try #require(lines.first { $0.hasPrefix("deletions-3:") }, "\(result.output)")
        // One call per installation: the emulator counted 3,000 calls of one item each.
        #expect(deletions.contains("3000 backend calls, 1 items per call"), "\(deletions)")
        #expect(deletions.hasSuffix("shipped pipelines/deletions.yaml, unchanged but for topic names"), "\(deletions)")
        let imports = try #require(lines.first { $0.hasPrefix("imports-100:") }, "\(result.output)")
        #expect(imports.hasSuffix("shipped pipelines/apns-imports.yaml, unchanged but for topic names"), "\(imports)")
        // Every shape's items succeed: real-size tokens and FIDs the emulator was seeded with,
        // APNs device tokens it imports.
        let results = lines.filter { $0.hasPrefix("  items by result: ") }
        #expect(results.count == 3 && results.allSatisfy { $0.hasSuffix(": OK 3000") }, "\(result.output)")
    }

    @Test("bench quota runs its workers on the shipped file in one group until the end and prints the share of the quota from the start and after warm-up")
    func benchQuota() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "quota", "--workers", "2", "--seconds", "12", "--warm-up", "2", "--partitions", "4"], seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("2 worker process(es) on the shipped pipelines/topic-changes.yaml, unchanged but for topic names"), "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("at quota 40.0:") }, "\(result.output)")
        #expect(line.contains("from the workers' start ") && line.contains("after the warm-up "), "\(line)")
        #expect(line.contains("of the quota") && line.contains("of attempts throttled"), "\(line)")
        #expect(line.hasSuffix("shipped pipelines/topic-changes.yaml, unchanged but for topic names"), "\(line)")
        #expect(result.output.contains("items dead-lettered: 0"), "\(result.output)")
    }

    /// Whether this build's emulator serves TLS (helper H2's `--tls-cert`), which the field
    /// profile needs.
    static var emulatorServesTLS: Bool {
        get async {
            guard let result = try? await ChildProcess.run(try Programs.iidbatch, ["emulator", "--help"]) else { return false }
            return result.output.contains("--tls-cert")
        }
    }

    @Test("bench field runs the shipped topic file over HTTPS and prints the share of the quota, throttled share, connections and CPU per call")
    func benchField() async throws {
        guard await Self.emulatorServesTLS else {
            // Until the TLS emulator is merged the command can only fail; say so plainly.
            let result = try await ChildProcess.run(try Programs.iidbatch, ["bench", "field", "--calls", "2000"], seconds: 300)
            #expect(result.status != 0, "\(result.output)")
            return
        }
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "field", "--calls", "3000", "--latency", "5", "--jitter", "10", "--quota", "1000", "--partitions", "4"],
            seconds: 300)
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("field: ") }, "\(result.output)")
        #expect(line.contains("30 requests, ") && line.contains("of the quota 1000/s from the worker's start"), "\(line)")
        #expect(line.contains("attempts throttled") && line.contains("TCP connections from the worker") && line.contains("µs per call"), "\(line)")
        #expect(line.hasSuffix("shipped pipelines/topic-changes.yaml, unchanged but for topic names"), "\(line)")
        #expect(result.output.contains("  items by result: OK 3000"), "\(result.output)")
    }

    @Test("bench client makes each call it names at its rate, over HTTP/1.1 and over HTTPS + HTTP/2, and prints the CPU per call and every result")
    func benchClient() async throws {
        let deletions = try await ChildProcess.run(try Programs.iidbatch, ["bench", "client", "--calls", "400", "--rate", "400"], seconds: 300)
        #expect(deletions.status == 0, "\(deletions.output)")
        let line = try #require(deletions.output.split(separator: "\n").first { $0.hasPrefix("bench client: ") }, "\(deletions.output)")
        #expect(line.contains("400 deletion calls over HTTP/1.1, latency 0 ms, ") && line.contains("µs of CPU per call (system "), "\(line)")
        // The seeded installations, each deleted once.
        #expect(deletions.output.contains("  results: OK 400"), "\(deletions.output)")
        let subscribes = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "client", "--call", "fcm-subscribe", "--tls", "--calls", "400", "--rate", "400", "--latency", "5"], seconds: 300)
        #expect(subscribes.status == 0, "\(subscribes.output)")
        #expect(subscribes.output.contains("bench client: 400 fcm-subscribe calls over HTTPS + HTTP/2, latency 5 ms, "), "\(subscribes.output)")
        #expect(subscribes.output.contains("  results: OK 400"), "\(subscribes.output)")
        let refused = try await ChildProcess.run(try Programs.iidbatch, ["bench", "client", "--rate", "0"])
        #expect(refused.status == 64 && refused.output.contains("--rate must be 1...100000, got 0"), "\(refused.output)")
    }

    @Test("bench field refuses options out of range, naming the value")
    func benchFieldValidation() async throws {
        let result = try await ChildProcess.run(try Programs.iidbatch, ["bench", "field", "--quota", "0"])
        #expect(result.status == 64, "\(result.output)")
        #expect(result.output.contains("--quota must be 1...1000000 calls/s, got 0.0"), "\(result.output)")
        let calls = try await ChildProcess.run(try Programs.iidbatch, ["bench", "field", "--calls", "5"])
        #expect(calls.status == 64 && calls.output.contains("--calls must be 100...2,000,000, got 5"), "\(calls.output)")
    }
}
