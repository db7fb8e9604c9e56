import Emulator
import Foundation
import InstanceAPI
import Pipeline
import Testing
import WireJSON

/// What the backend answers, end to end (issue 31): a real worker, EmbeddedKafka over TCP and the
/// emulator over HTTP answering what Google, a proxy in front of it, or a wrong base path would.
/// Each of these stalled the pipeline, stopped an API for a day, or wrote false receipts before.
@Suite("Backend answers, end to end: per-item 403s, pages that are not the API's, Retry-After of any size", .serialized)
struct BackendAnswerTests {
    @Test("a deletion of another project's FID is that FID's PERMISSION_DENIED; the project's own FIDs after it are deleted")
    func foreignInstallation() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            fixture.backend.seed(SeedRequest(installations: ["fid-of-another-project"], project: "another-project"))
            let own = (0..<5).map { "fid-own-installation-\($0)" }
            fixture.backend.seed(SeedRequest(installations: own))
            let foreign = PipelineRequest(id: "erase-foreign", op: .installationsDelete, target: .subject("s-1"), items: ["fid-of-another-project"])
            let mine = PipelineRequest(id: "erase-own", op: .installationsDelete, target: .subject("s-1"), items: PackedStrings(own))
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.submit([foreign, mine], key: { _ in "s-1" })
            let outcomes = try await fixture.waitForOutcomes([foreign.id, mine.id], timeout: .seconds(60))
            await worker.stop()
            let refused = try #require(outcomes[foreign.id])
            #expect(refused.status == .failed)
            #expect(refused.failedItems.map(\.code) == [.permissionDenied])
            #expect(refused.failedItems.first?.retryable == false, "final: it is another project's")
            #expect(try #require(outcomes[mine.id]).counts == ["OK": 5], "\(outcomes[mine.id]?.counts ?? [:])")
        }
    }

    @Test("a proxy answering every API path with a 404 page: nothing is reported erased; the work completes once the API answers again")
    func proxyPagesAreNoReceipts() async throws {
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(pageErrors: ["404": 1])) { fixture in
            let installations = (0..<20).map { "fid-still-here-\($0)" }
            fixture.backend.seed(SeedRequest(installations: installations))
            let request = PipelineRequest(id: "erase-20", op: .installationsDelete, target: .subject("s-2"), items: PackedStrings(installations))
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.submit([request])
            // Every call gets a page: the breaker opens and holds the work; nothing is settled.
            try await waitUntil("the 404 pages reach the worker", timeout: .seconds(60)) { fixture.backend.stats["installations.delete"].calls > 10 }
            try await Task.sleep(for: .seconds(2))
            #expect(fixture.outcomes.isEmpty, "no outcome, and above all no ALREADY_ABSENT receipt, from a page: \(fixture.outcomes)")
            #expect(fixture.deadLetters.isEmpty, "nothing dead-lettered for a misconfiguration")
            try fixture.backend.setFaults(FaultPlan())
            let outcomes = try await fixture.waitForOutcomes([request.id], timeout: .seconds(60))
            await worker.stop()
            #expect(try #require(outcomes[request.id]).counts == ["OK": 20], "each installation deleted by the API itself")
        }
    }

    @Test("a 429 with Retry-After of Int.max seconds holds the API no longer than max-backoff: every deletion completes")
    func hugeRetryAfter() async throws {
        // A quota of 5 calls/s (the bucket starts with one second's): the worker's first round
        // trip alone passes it, however slowly a loaded machine runs (at 20/s a busy CI run stayed
        // under it, and nothing was throttled).
        let faults = FaultPlan(quota: ["installations.delete": 5], retryAfter: "9223372036854775807")
        try await withPipelineFixture(partitions: 1, faults: faults) { fixture in
            let installations = (0..<60).map { "fid-paced-\($0)" }
            fixture.backend.seed(SeedRequest(installations: installations))
            let requests = installations.map { PipelineRequest(id: "erase-\($0)", op: .installationsDelete, target: .subject("s-3"), items: [$0]) }
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.submit(requests)
            let outcomes = try await fixture.waitForOutcomes(requests.map(\.id), timeout: .seconds(90))
            await worker.stop()
            #expect(outcomes.values.allSatisfy { $0.counts == ["OK": 1] }, "\(outcomes.values.map(\.counts))")
            #expect(fixture.backend.stats["installations.delete"].throttled > 0, "the quota did throttle")
        }
    }
}
