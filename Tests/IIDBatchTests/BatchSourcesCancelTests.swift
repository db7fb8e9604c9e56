import Foundation
import Kafka
import Pipeline
import Testing

@testable import iidbatch

/// The cancels `iidbatch batches` shows for a batch: its pipeline's, and for a batch of no one
/// pipeline (a replay across several, a submit to a topic no pipeline file reads) those naming it
/// in any pipeline, where it showed none while its items said CANCELLED.
@Suite("batches: the cancels of a batch")
struct BatchSourcesCancelTests {
    private static let created = Date(timeIntervalSince1970: 1_800_000_000)

    private static func manifest(pipeline: String?) -> BatchManifest {
        BatchManifest(
            name: "replay-7", op: nil, pipeline: pipeline, requestTopics: ["deletions", "topics"], requests: 2, items: 2, createdBy: "sre", createdAt: created,
            inputSHA256: BatchManifest.inputDigest([]), state: .submitted)
    }

    private static func cancel(_ pipeline: String, batch: String?, tag: String) -> ControlCancel {
        ControlCancel(
            pipeline: pipeline, batch: batch, requestID: nil, producedBefore: batch == nil ? created.addingTimeInterval(60) : nil, version: 1,
            updatedAt: created, updatedBy: "sre", reason: "stop", tag: tag)
    }

    @Test("a batch shows its pipeline's cancels and those naming it in any pipeline; of no one pipeline, no pipeline-wide one")
    func noPipeline() {
        var board = ControlBoard()
        let cancels = [
            Self.cancel("deletions", batch: "replay-7", tag: "a"), Self.cancel("topics", batch: "replay-7", tag: "b"),
            Self.cancel("topics", batch: "other", tag: "c"), Self.cancel("deletions", batch: nil, tag: "d"),
        ]
        for (offset, cancel) in cancels.enumerated() {
            _ = board.receive(KafkaRecord(topic: "control", partition: 0, offset: Int64(offset), key: Array(cancel.recordKey.utf8), value: cancel.jsonBytes()))
        }
        #expect(BatchSources.cancels(of: Self.manifest(pipeline: nil), on: board).map(\.tag).sorted() == ["a", "b"])
        #expect(BatchSources.cancels(of: Self.manifest(pipeline: "deletions"), on: board).map(\.tag).sorted() == ["a", "b", "d"])
        #expect(BatchSources.cancels(of: Self.manifest(pipeline: nil), on: nil).isEmpty)
        // A pipeline the files say reads another topic: its cancel reached none of the batch.
        let readers = ["topics": "iidbatch.topics", "deletions": "deletions"]
        #expect(BatchSources.cancels(of: Self.manifest(pipeline: "deletions"), on: board, readers: readers).map(\.tag).sorted() == ["a", "d"])
    }
}
