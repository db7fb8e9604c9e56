import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// The defects found in the line-by-line review of the worker (issue 17), each reproduced end to
/// end: real workers (in this process or as the `iidbatch` binary), EmbeddedKafka over TCP and the
/// emulator over HTTP. Each of these stalled, hung or lost its way before the fix.
@Suite("Review defects, end to end", .serialized)
struct ReviewDefectTests {
    /// Produces `request` to one partition of the request topic.
    private func produce(_ fixture: PipelineFixture, _ request: PipelineRequest, partition: Int32) async throws {
        let producer = try KafkaProducer(configuration: fixture.kafka.configuration())
        _ = try await producer.send(topic: fixture.requestTopic, key: Array(request.id.utf8), value: Array(request.jsonBody()), partition: partition)
        await producer.close()
    }

    @Test("a deletion too large for its receipt to be published is rejected naming the field and the limit; the partition goes on (point 1)")
    func oversizedOutcomeIsRejected() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            // 14,000 installations: a valid record of about 330 kB whose erasure receipt alone
            // would pass the producer's 1,000,000-byte limit.
            let huge = PipelineRequest(
                id: "erase-huge", op: .installationsDelete, target: .subject("subject-1"),
                items: (0..<14_000).map { "fid-\(NumberText.digits($0, width: 18))" })
            let small = PipelineRequest(id: "erase-small", op: .installationsDelete, target: .subject("subject-1"), items: ["fid-a", "fid-b"])
            let worker = try fixture.startWorker(fixture.pipeline())
            try await fixture.submit([huge, small], key: { _ in "subject-1" })
            let outcomes = try await fixture.waitForOutcomes([huge.id, small.id], timeout: .seconds(120))
            await worker.stop()

            let rejected = try #require(outcomes[huge.id])
            #expect(rejected.status == .rejected)
            #expect(rejected.reason?.hasPrefix("installations: 14000 items") == true, "\(rejected.reason ?? "")")
            #expect(rejected.reason?.contains("max-outcome-bytes") == true)
            let after = try #require(outcomes[small.id])
            #expect(after.status != .rejected && after.counts.values.reduce(0, +) == 2, "the record after it is worked on and answered")
            // The dead-letter topic is read apart from the outcomes: its record may be read after them.
            let read = try await fixture.waitForRead({ _ in "the dead letter of \(huge.id)" }) { read in
                read.deadLetters.contains { $0.headers.string(DeadLetterHeader.requestID) == huge.id }
            }
            let letter = try #require(read.deadLetters.first { $0.headers.string(DeadLetterHeader.requestID) == huge.id })
            #expect(letter.value == Array(huge.jsonBody()), "dead-lettered byte for byte")
            #expect(fixture.backend.stats[BackendAPI.deleteInstance.rawValue].calls < 100, "no call was made for the rejected request")
        }
    }

    @Test("an outcome larger than the producer takes is published without its item lists, and iidbatch run goes on (issue 31, finding 4)")
    func tooLargeOutcomeIsPublishedCompact() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "too-large")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "too-large-workers", "batching: { max-items: 100, linger: 10ms }")
            // 60 tokens the emulator does not know: 60 failed items, an outcome of several kB,
            // over a producer limited to 2,000 bytes per record.
            let request = PipelineRequest(id: "too-large-1", op: .topicsSubscribe, target: .topic("t"), items: (0..<60).map { "unknown-token-\($0)" })
            let tokens = fixture.seedTokens(2, prefix: "too-large")
            let after = PipelineRequest(id: "too-large-2", op: .topicsSubscribe, target: .topic("t"), items: tokens)
            try await fixture.submit([request, after])
            let worker = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["-X", "message.max.bytes=2000", "--log-level", "warning"]))
            let outcomes = try await fixture.waitForOutcomes([request.id, after.id], timeout: .seconds(90))
            worker.interrupt()
            let status = try await worker.waitForExit()
            #expect(status == 0, "no record stops the worker; it said:\n\(worker.text)")
            #expect(worker.text.contains("too-large-1") && worker.text.contains("MSG_SIZE_TOO_LARGE"), "the warning names the request and the reason")

            let compact = try #require(outcomes[request.id])
            #expect(compact.status != .succeeded && compact.status != .rejected && compact.counts.values.reduce(0, +) == 60, "the counts stay")
            #expect(compact.failedItems.isEmpty, "the item lists are left out")
            #expect(compact.reason?.contains("MSG_SIZE_TOO_LARGE") == true, "\(compact.reason ?? "")")
            #expect(outcomes[after.id]?.status == .succeeded)
        }
    }

    @Test("iidbatch run exits non-zero when the cluster refuses every record (a forbidden topic), naming the request and the reason")
    func refusedTopicEndsTheProcess() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "refused")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "refused-workers", "batching: { max-items: 100, linger: 10ms }")
            let request = PipelineRequest(id: "refused-1", op: .topicsSubscribe, target: .topic("t"), items: fixture.seedTokens(1, prefix: "refused"))
            try await fixture.submit([request])
            // From now on the cluster refuses every record produced: the worker's first is its outcome.
            fixture.kafka.injectRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 50))
            let worker = try await ChildProcess(try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["--log-level", "warning"]))
            let status = try await worker.waitForExit(seconds: 90)
            fixture.kafka.clearRequestErrors(.produce)
            #expect(status != 0, "a worker that stopped itself makes the process fail; it said:\n\(worker.text)")
            #expect(worker.text.contains("refused-1"), "the error names the request")
            #expect(worker.text.contains("TOPIC_AUTHORIZATION_FAILED"), "and the cluster's reason:\n\(worker.text)")
        }
    }

    @Test("a partition revoked while paused and assigned again after the worker resumed is fetched (point 3)")
    func partitionReturnsAfterResume() async throws {
        try await withPipelineFixture(partitions: 2) { fixture in
            let tokens = fixture.seedTokens(40, prefix: "pause")
            func request(_ n: Int) -> PipelineRequest {
                PipelineRequest(id: "pause-\(n)", op: .topicsSubscribe, target: .topic("p\(n)"), items: Array(tokens[n * 10..<n * 10 + 10]))
            }
            let pipeline = fixture.pipeline {
                $0.breakerCooldown = .milliseconds(200)
                $0.breakerMaxCooldown = .milliseconds(400)
            }
            // Credentials refused: worker A's first call opens its breaker and pauses both partitions.
            try fixture.backend.setFaults(FaultPlan(rejectCredentials: true))
            let a = try fixture.startWorker(pipeline)
            try await produce(fixture, request(0), partition: 0)
            try await produce(fixture, request(1), partition: 1)
            try await waitUntil("A's breaker to open") { await a.worker.currentStatistics().breakerOpenings >= 1 }
            // B joins while A is paused: one partition moves to B, revoked from A while paused.
            let b = try fixture.startWorker(pipeline)
            try await waitUntil("B to take a partition and meet the refusal") { await b.worker.currentStatistics().breakerOpenings >= 1 }
            // The refusal ends: both resume and finish what they hold.
            try fixture.backend.setFaults(FaultPlan())
            _ = try await fixture.waitForOutcomes([request(0).id, request(1).id], timeout: .seconds(60))
            // B leaves: its partition returns to A, which is no longer paused.
            await b.stop()
            try await produce(fixture, request(2), partition: 0)
            try await produce(fixture, request(3), partition: 1)
            let outcomes = try await fixture.waitForOutcomes([request(2).id, request(3).id], timeout: .seconds(60))
            await a.stop()
            #expect(outcomes.values.allSatisfy { $0.status == .succeeded })
        }
    }
}
