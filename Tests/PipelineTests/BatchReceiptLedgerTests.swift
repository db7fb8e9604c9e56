import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// A receipt tells what happened: an outcome that called beats a later cancelled redelivery, an
/// outcome without its lists does not make its failures `OK`, and every cancel that could have
/// matched the batch is listed.
@Suite("Batch receipts: what happened, not the last word")
struct BatchReceiptLedgerTests {
    private let request = PipelineRequest(id: "r-1", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t2"], batch: "gdpr-7")

    private func manifest() -> BatchManifest {
        var manifest = BatchManifestTests.manifest(.submitted)
        manifest.op = .topicsSubscribe
        return manifest
    }

    @Test("a cancelled redelivery after a succeeded outcome (a crash before the commit): the receipt reports the succeeded one")
    func calledOutcomeStays() {
        var succeeded = BatchProgressTests.outcome("r-1", items: 2, at: 1)
        succeeded.op = .topicsSubscribe
        var cancelled = BatchProgressTests.outcome("r-1", items: 0, at: 5, status: .cancelled)
        cancelled.counts = [Outcome.cancelledItems: 2]
        let receipt = BatchReceipt(
            manifest: manifest(), outcomes: [BatchReceiptTests.record(succeeded, offset: 0), BatchReceiptTests.record(cancelled, offset: 1)],
            requests: [request], cancels: [])
        #expect(receipt.requests.first?.status == "succeeded" && receipt.requests.first?.items.map(\.code) == ["OK", "OK"])
        #expect(receipt.requests.first?.outcomes == 2 && receipt.outcomeRecords == 2, "both hashed and counted")
    }

    @Test("an outcome whose item lists were left out as too large: its failures are not reported OK, and its items are marked incomplete")
    func listsLeftOut() {
        var outcome = BatchProgressTests.outcome("r-1", items: 2, at: 1, status: .partial)
        outcome.counts = ["OK": 1, "NOT_FOUND": 1]
        outcome = outcome.withoutItemLists(because: "too large")
        let receipt = BatchReceipt(manifest: manifest(), outcomes: [BatchReceiptTests.record(outcome, offset: 0)], requests: [request], cancels: [])
        let line = receipt.requests.first
        #expect(line?.items.map(\.code) == [nil, nil], "which item failed is not known: \(line?.items.map(\.code) ?? [])")
        #expect(line?.itemsComplete == false)
    }

    @Test("the cancels listed: those naming the batch, one of its request ids, or only a bound; all their fields")
    func cancelsListed() throws {
        func cancel(_ batch: String?, _ id: String?, _ tag: String) -> ControlCancel {
            ControlCancel(
                pipeline: "deletions", batch: batch, requestID: id, producedBefore: batch == nil && id == nil ? BatchReceiptTests.created : nil,
                version: 1, updatedAt: BatchReceiptTests.created, updatedBy: "dpo", reason: "why \(tag)", tag: tag)
        }
        let cancels = [cancel("gdpr-7", nil, "a"), cancel(nil, "r-1", "b"), cancel(nil, nil, "c"), cancel("other", nil, "d"), cancel(nil, "r-9", "e")]
        let receipt = BatchReceipt(manifest: manifest(), outcomes: [], requests: [request], cancels: cancels)
        #expect(receipt.cancels.map(\.tag) == ["a", "b", "c"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(receipt.jsonBytes())) as? [String: Any])
        let listed = try #require(document["cancels"] as? [[String: Any]])
        #expect(listed[1]["requestId"] as? String == "r-1" && listed[0]["batch"] as? String == "gdpr-7" && listed[2]["producedBefore"] != nil)
        #expect((document["manifest"] as? [String: Any])?["name"] as? String == "gdpr-7", "the manifest as its topic holds it")
    }

    @Test("outcome records stamped before outcomesSince (an older batch of the same name) are neither reported nor hashed")
    func olderRecordsLeftOut() {
        let outcome = BatchProgressTests.outcome("r-1", items: 2, at: 1)
        var old = BatchReceiptTests.record(outcome, offset: 0)
        old.record.timestamp = manifest().outcomesSince.addingTimeInterval(-1)
        var new = BatchReceiptTests.record(outcome, offset: 1)
        new.record.timestamp = manifest().outcomesSince
        let receipt = BatchReceipt(manifest: manifest(), outcomes: [old, new], requests: [], cancels: [])
        #expect(receipt.outcomeRecords == 1 && receipt.requests.first?.outcome == "outcomes/0/1")
        #expect(receipt.outcomesSHA256 == BatchManifest.inputDigest(BatchReceipt.hashedBytes(of: new.record)))
    }
}
