import Foundation
import Kafka
import Testing

@testable import Pipeline

/// `iidbatch replay` leaves the dead letters of cancelled work (replay audit F1): a replay is a
/// batch of its own, which the cancel of the original's batch would not name, and a deletion
/// cannot be undone.
@Suite("Cancelled letters: a cancel of the original's batch or id holds for its dead letters")
struct CancelledLettersTests {
    private let t0 = Date(timeIntervalSince1970: 1_000)

    private func letter(_ id: String, batch: String?, topic: String = "iidbatch.deletions", writtenAt: Date? = nil) -> DeadLetter {
        let request = PipelineRequest(id: id, op: .installationsDelete, target: .subject("user-42"), items: ["fid-a"], batch: batch)
        let made = DeadLetter.leftover(
            request, key: nil, from: KafkaTopicPartition(topic: topic, partition: 0), offset: 3, lastError: "UNAVAILABLE", attempts: 3,
            codes: ["UNAVAILABLE"])
        return DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 1, key: made.key, value: made.value, headers: made.headers, timestamp: writtenAt))
    }

    private func cancel(_ pipeline: String, batch: String? = nil, requestID: String? = nil, producedBefore: Date? = nil) -> ControlCancel {
        ControlCancel(
            pipeline: pipeline, batch: batch, requestID: requestID, producedBefore: producedBefore, version: 1, updatedAt: t0, updatedBy: "bob",
            reason: "wrong list", tag: "t-\(batch ?? requestID ?? "")")
    }

    private func board(_ cancels: [ControlCancel]) -> ControlBoard {
        var board = ControlBoard()
        for cancel in cancels { board.apply(cancel) }
        return board
    }

    private var pipelines: [PipelineConfiguration] {
        [PipelineConfiguration(name: "deletions", requestTopic: "iidbatch.deletions"), PipelineConfiguration(name: "topics", requestTopic: "iidbatch.topics")]
    }

    @Test("the dead letter keeps its request's batch, and reads back with it")
    func letterKeepsItsBatch() {
        #expect(letter("d-1", batch: "gdpr-7").request?.batch == "gdpr-7")
    }

    @Test("a cancel of the batch, or of the id, in the pipeline reading the letter's topic holds; bounded too; another batch's does not")
    func matching() {
        let check = CancelledLetters(board: board([cancel("deletions", batch: "gdpr-7", producedBefore: t0)]), pipelines: pipelines)
        #expect(check.cancel(of: letter("d-1", batch: "gdpr-7"))?.reason == "wrong list", "a bound cannot be checked: it holds")
        #expect(check.cancel(of: letter("d-2", batch: "gdpr-8")) == nil)
        #expect(check.cancel(of: letter("d-3", batch: nil)) == nil)
        let byID = CancelledLetters(board: board([cancel("deletions", requestID: "d-4")]), pipelines: pipelines)
        #expect(byID.cancel(of: letter("d-4", batch: nil)) != nil && byID.cancel(of: letter("d-5", batch: nil)) == nil)
    }

    @Test("a cancel of a pipeline reading another topic does not hold; one of a pipeline the files do not know does")
    func otherPipelines() {
        let elsewhere = CancelledLetters(board: board([cancel("topics", batch: "gdpr-7")]), pipelines: pipelines)
        #expect(elsewhere.cancel(of: letter("d-1", batch: "gdpr-7")) == nil)
        let unknown = CancelledLetters(board: board([cancel("old-deletions", batch: "gdpr-7")]), pipelines: pipelines)
        #expect(unknown.cancel(of: letter("d-1", batch: "gdpr-7")) != nil)
        let noFiles = CancelledLetters(board: board([cancel("topics", batch: "gdpr-7")]), pipelines: [])
        #expect(noFiles.cancel(of: letter("d-1", batch: "gdpr-7")) != nil)
    }

    @Test("a cancel by its bound alone holds for every letter of its pipeline: one written after the bound may be of a request started before it")
    func boundOnly() {
        let check = CancelledLetters(board: board([cancel("deletions", producedBefore: t0)]), pipelines: pipelines)
        #expect(check.cancel(of: letter("d-1", batch: nil, writtenAt: t0.addingTimeInterval(-5))) != nil)
        #expect(
            check.cancel(of: letter("d-2", batch: "any", writtenAt: t0.addingTimeInterval(5))) != nil, "its original may have been produced before the bound")
    }
}
