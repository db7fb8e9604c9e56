import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// Faults in the backend: transient errors retried to success, a spent retry budget dead-lettered
/// and replayed, an outage riding on the circuit breaker.
@Suite("Pipeline end to end: retries, dead letters, circuit breaker", .serialized)
struct PipelineFaultTests {
    @Test("INTERNAL on 20 % of items and a quota: every item ends OK, and retries are counted")
    func transientFaults() async throws {
        try await withPipelineFixture(faults: FaultPlan(itemErrors: ["INTERNAL": 0.2], quota: ["installations.delete": 200])) { fixture in
            let tokens = fixture.seedTokens(3_000, prefix: "transient")
            let fids = (0..<300).map { "fid-transient-\(NumberText.digits($0, width: 8))" }
            fixture.backend.seed(SeedRequest(installations: fids))
            var requests = stride(from: 0, to: tokens.count, by: 250).map { start in
                PipelineRequest(id: "topics-\(start)", op: .topicsSubscribe, target: .topic("t\(start % 3)"), items: Array(tokens[start..<start + 250]))
            }
            requests += stride(from: 0, to: fids.count, by: 30).map { start in
                PipelineRequest(id: "delete-\(start)", op: .installationsDelete, target: .subject("s\(start)"), items: Array(fids[start..<start + 30]))
            }
            let worker = try fixture.startWorker(fixture.pipeline { $0.retry.maxAttempts = 20 })
            try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            let statistics = await worker.worker.currentStatistics()
            await worker.stop()

            #expect(outcomes.values.allSatisfy { $0.status == .succeeded }, "\(outcomes.values.filter { $0.status != .succeeded }.map(\.counts))")
            #expect(
                fixture.backend.subscribers(of: "t0").count + fixture.backend.subscribers(of: "t1").count + fixture.backend.subscribers(of: "t2").count == 3_000
            )
            #expect(fids.allSatisfy { fixture.backend.installationDeleted($0) == true })
            #expect(statistics.retries > 0 && statistics.itemCodes["topics.subscribe"]?["OK"] == 3_000)
            let quotaRefusals = fixture.backend.stats["installations.delete"].statuses["429"] ?? 0
            #expect(statistics.failedCalls >= quotaRefusals, "429s are retried whole calls")
            #expect(fixture.deadLetters.isEmpty)
        }
    }

    @Test("a spent retry budget dead-letters the leftover items as a request; replayed after the fault clears, they succeed")
    func deadLetterAndReplay() async throws {
        // Throttled items are paced until `max-elapsed`; every item INTERNAL or UNAVAILABLE would
        // be an outage, which pauses instead (below).
        try await withPipelineFixture(faults: FaultPlan(itemErrors: ["RESOURCE_EXHAUSTED": 1.0])) { fixture in
            let tokens = fixture.seedTokens(40, prefix: "dlq")
            let requests = (0..<4).map { n in
                PipelineRequest(id: "dlq-\(n)", op: .topicsSubscribe, target: .topic("dlq\(n)"), items: Array(tokens[n * 10..<n * 10 + 10]))
            }
            let pipeline = fixture.pipeline {
                $0.retry = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), maxElapsed: .seconds(3))
            }
            let worker = try fixture.startWorker(pipeline)
            let reports = try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            let letters = try await fixture.waitForDeadLetters(4)
            #expect(
                outcomes.values.allSatisfy { outcome in
                    outcome.status == .failed && outcome.failedItems.allSatisfy { $0.retryable && $0.code == .resourceExhausted && $0.attempts >= 1 }
                })

            for letter in letters {
                let request = try RequestDecoder().decode(letter.value ?? []).get()
                let original = try #require(requests.first { $0.id == request.id })
                #expect(request.items == original.items && request.op == original.op && request.target == original.target)
                let attempts = try #require(outcomes[request.id]?.failedItems.map(\.attempts).max())
                #expect(request.priorAttempts == attempts)
                let headers = letter.headers
                #expect(headers.string(DeadLetterHeader.originalTopic) == fixture.requestTopic)
                #expect(headers.string(DeadLetterHeader.requestID) == request.id && headers.string(DeadLetterHeader.attempts) == "\(attempts)")
                let report = reports[try #require(requests.firstIndex { $0.id == request.id })]
                #expect(headers.string(DeadLetterHeader.originalOffset) == "\(report.offset)")
                #expect(headers.string(DeadLetterHeader.originalPartition) == "\(report.partition)")
                #expect(headers.string(DeadLetterHeader.error)?.contains("RESOURCE_EXHAUSTED") == true)
            }

            try fixture.backend.setFaults(FaultPlan())
            try await fixture.produce(letters.map { (String(decoding: $0.key ?? [], as: UTF8.self), $0.value ?? []) })
            try await fixture.waitForRead({ "4 replayed requests to succeed (\($0.outcomes.count { $0.status == .succeeded }) did)" }) {
                $0.outcomes.count { $0.status == .succeeded } >= 4
            }
            await worker.stop()
            let replayed = fixture.outcomes.filter { $0.status == .succeeded }
            #expect(Set(replayed.map(\.requestID)) == Set(requests.map(\.id)))
            #expect(replayed.allSatisfy { $0.counts == ["OK": 10] })
            for n in 0..<4 { #expect(fixture.backend.subscribers(of: "dlq\(n)") == Array(tokens[n * 10..<n * 10 + 10]).sorted()) }
        }
    }

    /// Subscribe requests of 100 tokens each (`count` tokens `prefix-…`) to a worker whose budget
    /// an outage would spend many times over if each failed call were charged, under `fault`
    /// until the breaker has opened and `held` more (the outage ends on what the worker did, not
    /// on a clock started before it had made a call); `whileOpen` looks before the fault clears.
    /// Every request's outcome, and the worker's statistics then.
    private func rideOutage(
        _ fixture: PipelineFixture, prefix: String, count: Int, topics: Int, fault: FaultPlan, maxAttempts: Int, held: Duration, singles: Int = 0,
        whileOpen: () -> Void = {}
    ) async throws -> (outcomes: [String: Outcome], statistics: WorkerStatistics) {
        let tokens = fixture.seedTokens(count + singles, prefix: prefix)
        var requests = stride(from: 0, to: count, by: 100).map { start in
            PipelineRequest(
                id: "\(prefix)-\(start)", op: .topicsSubscribe, target: .topic("\(prefix)\(start % topics)"), items: Array(tokens[start..<start + 100]))
        }
        // Requests of one token, each alone on its topic: calls of one item.
        requests += (0..<singles).map { n in
            PipelineRequest(id: "\(prefix)-single-\(n)", op: .topicsSubscribe, target: .topic("\(prefix)-single-\(n)"), items: [tokens[count + n]])
        }
        try fixture.backend.setFaults(fault)
        let worker = try fixture.startWorker(
            fixture.pipeline {
                $0.retry = RetryPolicy(
                    maxAttempts: maxAttempts, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), maxElapsed: .seconds(60))
                $0.breakerThreshold = 3
            })
        try await fixture.submit(requests)
        try await waitUntil("the breaker to open") { await worker.worker.currentStatistics().breakerOpenings >= 1 }
        try await Task.sleep(for: held)
        whileOpen()
        try fixture.backend.setFaults(FaultPlan())
        let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
        let statistics = await worker.worker.currentStatistics()
        await worker.stop()
        return (outcomes, statistics)
    }

    @Test("a backend outage of several seconds opens the circuit: nothing is dead-lettered, everything completes")
    func outage() async throws {
        try await withPipelineFixture { fixture in
            let (outcomes, statistics) = try await rideOutage(
                fixture, prefix: "outage", count: 2_000, topics: 7, fault: FaultPlan(callErrors: ["503": 1.0]), maxAttempts: 3, held: .seconds(3))
            #expect(outcomes.values.allSatisfy { $0.status == .succeeded })
            #expect(statistics.breakerOpenings >= 1 && statistics.failedCalls >= 3)
            #expect(fixture.backend.stats["iid.batchAdd"].statuses["503"] ?? 0 < 60, "the open circuit stops the calls instead of hammering")
            #expect(fixture.deadLetters.isEmpty)
        }
    }

    @Test(
        "a backend answering every item of every batch INTERNAL, calls of one token too, is an outage: the circuit opens, nothing is dead-lettered, everything completes"
    )
    func everyItemInternal() async throws {
        try await withPipelineFixture { fixture in
            // A budget each item would spend in a second if its INTERNAL were charged.
            let (outcomes, _) = try await rideOutage(
                fixture, prefix: "inside", count: 600, topics: 3, fault: FaultPlan(itemErrors: ["INTERNAL": 1.0]), maxAttempts: 2, held: .seconds(2),
                singles: 6
            ) {
                #expect(fixture.outcomes.isEmpty && fixture.deadLetters.isEmpty, "no item was failed for a backend failing inside its 200s")
            }
            #expect(outcomes.count == 12 && outcomes.values.allSatisfy { $0.status == .succeeded && $0.counts.keys.sorted() == ["OK"] })
            #expect(fixture.deadLetters.isEmpty)
        }
    }

    @Test("credentials refused (401 after a token refresh) pause the work instead of failing items; it resumes when they are accepted again")
    func credentialsRefused() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(50, prefix: "auth")
            let requests = (0..<5).map { n in
                PipelineRequest(id: "auth-\(n)", op: .topicsSubscribe, target: .topic("a\(n)"), items: Array(tokens[n * 10..<n * 10 + 10]))
            }
            try fixture.backend.setFaults(FaultPlan(rejectCredentials: true))
            let worker = try fixture.startWorker(fixture.pipeline { $0.retry.maxAttempts = 2 })
            try await fixture.submit(requests)
            try await waitUntil("the breaker to open") { await worker.worker.currentStatistics().breakerOpenings > 0 }
            try await Task.sleep(for: .seconds(1))
            #expect(fixture.outcomes.isEmpty && fixture.deadLetters.isEmpty, "no item was failed for a system-wide refusal")

            try fixture.backend.setFaults(FaultPlan())
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id))
            let statistics = await worker.worker.currentStatistics()
            await worker.stop()
            #expect(statistics.breakerOpenings >= 1)
            #expect(outcomes.values.allSatisfy { $0.status == .succeeded })
            #expect(fixture.deadLetters.isEmpty)
        }
    }
}
