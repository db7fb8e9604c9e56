import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// `iidbatch run --http-port`: Prometheus metrics that agree with the outcomes, and readiness.
@Suite("iidbatch run: metrics and health over HTTP", .serialized)
struct RunMetricsTests {
    private func get(_ url: String) async throws -> (status: String, body: String) {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-w", "\n%{http_code}", url], seconds: 120)
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let status = lines.popLast() ?? ""
        return (status, lines.joined(separator: "\n"))
    }

    /// The value of every series of `name` whose labels include `label`, summed.
    private func sum(_ metrics: String, _ name: String, label: String) -> Int {
        metrics.split(separator: "\n").filter { $0.hasPrefix(name + "{") && $0.contains(label) }
            .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0) { $0 + Int($1) }
    }

    @Test("the per-code item counters equal the outcomes' counts; calls have a latency histogram; /readyz follows the breaker")
    func metricsAgreeWithOutcomes() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(itemErrors: ["NOT_FOUND": 0.2, "INVALID_ARGUMENT": 0.1])) { fixture in
            let folder = try RunFolder(fixture, name: "metrics")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(
                fixture, group: "metrics-workers", "batching: { max-items: 50, linger: 10ms }\ncircuit-breaker: { cooldown: 200ms, max-cooldown: 1s }")
            let tokens = fixture.seedTokens(500, prefix: "metrics")
            let requests = (0..<10).map { n in
                PipelineRequest(id: "metrics-\(n)", op: .topicsSubscribe, target: .topic("m\(n % 3)"), items: Array(tokens[(n * 50)..<(n * 50 + 50)]))
            }
            let port = Int.random(in: TestPorts.runMetrics)
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                folder.runArguments(
                    fixture, pipeline: pipeline,
                    [
                        "--http-port", "\(port)", "--ready-breaker-grace", "0s", "--log-level", "warning", "-X", "statistics.interval.ms=500",
                        "-X", "auto.commit.interval.ms=500",
                    ]))
            try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            let base = "http://127.0.0.1:\(port)"
            try await waitUntil("/readyz to answer 200") { (try? await get(base + "/readyz").status) == "200" }
            #expect(try await get(base + "/livez").status == "200")
            #expect(try await get(base + "/healthz").status == "200")

            let metrics = try await get(base + "/metrics").body
            var expected: [String: Int] = [:]
            for outcome in outcomes.values { expected.merge(outcome.counts, uniquingKeysWith: +) }
            #expect(expected.count >= 2, "the faults made several codes: \(expected)")
            for (code, count) in expected {
                #expect(sum(metrics, "iidbatch_items_total", label: "code=\"\(code)\"") == count, "\(code): \(metrics)")
            }
            #expect(sum(metrics, "iidbatch_requests_total", label: "status=") == requests.count)
            #expect(metrics.contains("iidbatch_call_duration_seconds_bucket{"), "a call-latency histogram")
            #expect(sum(metrics, "iidbatch_call_attempts_total", label: "status=\"200\"") > 0)
            #expect(metrics.contains("iidbatch_records_consumed_total{"))
            // Consumer lag of the owned partitions, as kafka_exporter shapes it, going to zero.
            var seen: [Substring] = []
            // A partition with no committed offset yet has no lag to report (librdkafka says -1).
            try await waitUntil("the lag of the partitions that hold requests to be reported as 0, saw \(seen)") {
                seen = (try? await get(base + "/metrics").body)?.split(separator: "\n").filter { $0.hasPrefix("kafka_consumergroup_lag{") } ?? []
                return !seen.isEmpty
                    && seen.allSatisfy { $0.contains("consumergroup=\"metrics-workers\"") && Double($0.split(separator: " ").last ?? "") == 0 }
            }

            // Credentials refused: the breaker opens and /readyz says why; accepted again: ready.
            try fixture.backend.setFaults(FaultPlan(rejectCredentials: true))
            fixture.backend.revokeAccessTokens()
            try await fixture.submit([PipelineRequest(id: "metrics-late", op: .topicsSubscribe, target: .topic("m0"), items: Array(tokens[0..<5]))])
            try await waitUntil("/readyz to answer 503") { (try? await get(base + "/readyz").status) == "503" }
            #expect(try await get(base + "/readyz").body.contains("circuit breaker open"))
            try fixture.backend.setFaults(FaultPlan())
            _ = try await fixture.waitForOutcomes(["metrics-late"])
            try await waitUntil("/readyz to answer 200 again") { (try? await get(base + "/readyz").status) == "200" }
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
        }
    }
}
