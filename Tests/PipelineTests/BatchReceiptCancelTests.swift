import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// A cancelled request on a batch's receipt: every item of its record ends CANCELLED.
@Suite("Batch receipts: cancelled requests")
struct BatchReceiptCancelTests {
    @Test("a cancelled deletion's items end CANCELLED at its completedAt; the totals count them so")
    func cancelledItems() throws {
        let manifest = BatchManifestTests.manifest(.submitted)
        var outcome = BatchProgressTests.outcome("r-1", items: 2, at: 3, status: .cancelled)
        outcome.target = ["subject": "s"]
        outcome.counts = [Outcome.cancelledItems: 2]
        outcome.receipt = nil
        let request = PipelineRequest(id: "r-1", op: .installationsDelete, target: .subject("s"), items: ["fid-a", "fid-b"], batch: "gdpr-7")
        let receipt = BatchReceipt(manifest: manifest, outcomes: [BatchReceiptTests.record(outcome, offset: 0)], requests: [request], cancels: [])
        let at = outcome.completedAt
        #expect(
            receipt.requests.first?.items == [
                BatchReceipt.Item(index: 0, item: "fid-a", code: Outcome.cancelledItems, at: at),
                BatchReceipt.Item(index: 1, item: "fid-b", code: Outcome.cancelledItems, at: at),
            ])
        #expect(receipt.itemsByCode == [Outcome.cancelledItems: 2])
        #expect(receipt.requestsByStatus == ["cancelled": 1])
    }
    @Test("a cancel bounded in time only is on the receipt when its bound is after the batch was made, not before")
    func boundedCancels() {
        let manifest = BatchManifestTests.manifest(.submitted)
        func cancel(_ tag: String, before offset: TimeInterval) -> ControlCancel {
            ControlCancel(
                pipeline: "deletions", batch: nil, requestID: nil, producedBefore: manifest.createdAt.addingTimeInterval(offset), version: 1,
                updatedAt: manifest.createdAt, updatedBy: "sre", reason: "stop", tag: tag)
        }
        let receipt = BatchReceipt(manifest: manifest, outcomes: [], requests: [], cancels: [cancel("before", before: -60), cancel("after", before: 60)])
        #expect(receipt.cancels.map(\.tag) == ["after"])
    }
}
