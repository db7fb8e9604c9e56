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

    /// An outcome of request `id` as the worker writes it for `op` and `target`.
    private func outcome(
        _ id: String, items: Int, at seconds: TimeInterval, status: OutcomeStatus = .succeeded, op: RequestOp, target: [String: String]
    ) -> Outcome {
        var outcome = BatchProgressTests.outcome(id, items: items, at: seconds, status: status)
        outcome.op = op
        outcome.target = target
        return outcome
    }

    /// The receipt of `outcomes`, at offsets 0, 1, … of one partition, and `requests`.
    private func receipt(_ outcomes: [Outcome], _ requests: [PipelineRequest], manifest: BatchManifest? = nil) -> BatchReceipt {
        BatchReceipt(
            manifest: manifest ?? self.manifest(), outcomes: outcomes.enumerated().map { BatchReceiptTests.record($0.element, offset: Int64($0.offset)) },
            requests: requests, cancels: [])
    }

    @Test("a cancelled redelivery after a succeeded outcome (a crash before the commit): the receipt reports the succeeded one")
    func calledOutcomeStays() {
        let succeeded = outcome("r-1", items: 2, at: 1, op: .topicsSubscribe, target: ["topic": "movies"])
        var cancelled = BatchProgressTests.outcome("r-1", items: 0, at: 5, status: .cancelled)
        cancelled.target = ["topic": "movies"]
        cancelled.counts = [Outcome.cancelledItems: 2]
        let receipt = self.receipt([succeeded, cancelled], [request])
        #expect(receipt.requests.first?.status == "succeeded" && receipt.requests.first?.items.map(\.code) == ["OK", "OK"])
        #expect(receipt.requests.first?.outcomes == 2 && receipt.outcomeRecords == 2, "both hashed and counted")
    }

    @Test("a submit's ids of which nothing was read (a submit that died halfway) are listed pending: the receipt never looks complete for want of a line")
    func unreadIDsArePending() {
        var manifest = manifest()
        manifest.idPrefix = "id-9f86"
        manifest.requests = 3
        let first = PipelineRequest(id: "id-9f86-000001", op: .topicsSubscribe, target: .topic("movies"), items: ["t1"], batch: "gdpr-7")
        let done = outcome("id-9f86-000001", items: 1, at: 1, op: .topicsSubscribe, target: ["topic": "movies"])
        let receipt = self.receipt([done], [first], manifest: manifest)
        #expect(receipt.requests.map(\.id) == ["id-9f86-000001", "id-9f86-000002", "id-9f86-000003"])
        #expect(receipt.requests.map(\.status) == ["succeeded", BatchReceipt.pending, BatchReceipt.pending])
        #expect(receipt.requestsByStatus[BatchReceipt.pending] == 2)
    }

    @Test("an outcome whose item lists were left out as too large: its failures are not reported OK, and its items are marked incomplete")
    func listsLeftOut() {
        var outcome = self.outcome("r-1", items: 2, at: 1, status: .partial, op: .topicsSubscribe, target: ["topic": "movies"])
        outcome.counts = ["OK": 1, "NOT_FOUND": 1]
        outcome = outcome.withoutItemLists(because: "too large")
        let receipt = self.receipt([outcome], [request])
        let line = receipt.requests.first
        #expect(line?.items.map(\.code) == [nil, nil], "which item failed is not known: \(line?.items.map(\.code) ?? [])")
        #expect(line?.itemsComplete == false)
    }

    @Test("two records of one id (the second rejected as a duplicate in flight): the outcome's items go to the record that fits it, never 'b' OK")
    func outcomeOfTheRecordThatFits() {
        let first = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a", "b"], batch: "gdpr-7")
        var second = first
        second.items = ["b"]
        var ran = outcome("x", items: 2, at: 1, status: .partial, op: .topicsSubscribe, target: ["topic": "t"])
        ran.counts = ["OK": 1, "UNAVAILABLE": 1]
        ran.failedItems = [FailedItem(index: 1, item: "b", code: .unavailable, attempts: 8, message: nil)]
        let duplicate = outcome("x", items: 0, at: 2, status: .rejected, op: .topicsSubscribe, target: ["topic": "t"])
        let receipt = self.receipt([ran, duplicate], [first, second])
        let items = receipt.requests.first?.items ?? []
        #expect(!items.contains { $0.item == "b" && $0.code == "OK" }, "\(items)")
        #expect(
            items == [
                BatchReceipt.Item(index: 0, item: "a", code: "OK", at: ran.completedAt),
                BatchReceipt.Item(index: 1, item: "b", code: "UNAVAILABLE", at: ran.completedAt),
                // The second record never ran (its dead letter is to be replayed): still to run.
                BatchReceipt.Item(index: 0, item: "b", code: nil, at: nil),
            ])
        #expect(receipt.requests.first?.itemsComplete == false && receipt.requests.first?.status == BatchReceipt.pending)
    }

    @Test("a forged record of a batch's id ran first and the real one was refused as its duplicate: the real FIDs are pending, never erased")
    func forgedDeletionFirst() {
        var deletions = manifest()
        deletions.op = .installationsDelete
        let forged = PipelineRequest(id: "gdpr-000003", op: .installationsDelete, target: .subject("s"), items: ["junk"], batch: "gdpr-7")
        let real = PipelineRequest(id: "gdpr-000003", op: .installationsDelete, target: .subject("s"), items: ["fid-1", "fid-2"], batch: "gdpr-7")
        var ran = BatchProgressTests.outcome("gdpr-000003", items: 1, at: 1)
        ran.target = ["subject": "s"]
        ran.receipt = [ItemReceipt(item: "junk", code: .alreadyAbsent, at: ran.completedAt)]
        var refused = BatchProgressTests.outcome("gdpr-000003", items: 0, at: 2, status: .rejected)
        refused.target = ["subject": "s"]
        refused.duplicateOf = "requests/0/1"
        let receipt = self.receipt([ran, refused], [forged, real], manifest: deletions)
        let line = receipt.requests.first
        #expect(line?.status == BatchReceipt.pending && line?.itemsComplete == false)
        #expect(
            line?.items == [
                BatchReceipt.Item(index: 0, item: "junk", code: "ALREADY_ABSENT", at: ran.completedAt),
                BatchReceipt.Item(index: 0, item: "fid-1", code: nil, at: nil),
                BatchReceipt.Item(index: 1, item: "fid-2", code: nil, at: nil),
            ])
    }

    @Test("two dead letters of one request replayed together, the second refused as a duplicate in flight: the request is pending, its item still to run")
    func replayedLettersApart() {
        let first = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a1", "a2"], replayOf: "x", priorAttempts: 6, batch: "gdpr-7")
        var second = first
        second.items = ["b"]
        var ran = outcome("x", items: 2, at: 1, op: .topicsSubscribe, target: ["topic": "t"])
        ran.replayOf = "x"
        let receipt = self.receipt([ran], [first, second])
        #expect(receipt.requests.first?.status == BatchReceipt.pending)
        #expect(receipt.requests.first?.items.map(\.code) == ["OK", "OK", nil] && receipt.requests.first?.items.map(\.item) == ["a1", "a2", "b"])
        #expect(receipt.requestsByStatus == [BatchReceipt.pending: 1])
    }

    @Test("a forged record of the same tokens for another topic ran, the real one refused as its duplicate: the real subscribe is pending, not succeeded")
    func forgedOtherTarget() {
        let real = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("a"), items: ["t1"], batch: "gdpr-7")
        var forged = real
        forged.target = .topic("b")
        let ran = outcome("x", items: 1, at: 1, op: .topicsSubscribe, target: ["topic": "b"])
        var refused = BatchProgressTests.outcome("x", items: 0, at: 2, status: .rejected)
        refused.duplicateOf = "requests/0/1"
        let receipt = self.receipt([ran, refused], [forged, real])
        #expect(receipt.requests.first?.status == BatchReceipt.pending && receipt.requests.first?.itemsComplete == false)
        #expect(receipt.requests.first?.items.map(\.code) == ["OK", nil])
    }

    @Test("two dead letters of one request replayed in one batch that both ran: every record answered, the request is not left pending")
    func bothLettersRan() {
        let all = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a", "b", "c"], replayOf: "x", priorAttempts: 6, batch: "gdpr-7")
        var some = all
        some.items = ["c", "d"]
        let first = outcome("x", items: 3, at: 1, op: .topicsSubscribe, target: ["topic": "t"])
        let second = outcome("x", items: 2, at: 2, op: .topicsSubscribe, target: ["topic": "t"])
        let receipt = self.receipt([first, second], [all, some])
        #expect(receipt.requests.first?.status == "succeeded" && receipt.requests.first?.itemsComplete == true)
        #expect(receipt.requests.first?.items.map(\.item) == ["c", "d", "a", "b", "c"])
        #expect(receipt.requests.first?.items.allSatisfy { $0.code == "OK" } == true)
    }

    @Test("an earlier record's failure is never hidden by a later record's success: both listed with their codes, the request partial")
    func earlierFailureListed() {
        let first = PipelineRequest(
            id: "x", op: .installationsDelete, target: .subject("s"), items: ["a", "b"], replayOf: "x", priorAttempts: 6, batch: "gdpr-7")
        var second = first
        second.items = ["c"]
        var failed = BatchProgressTests.outcome("x", items: 2, at: 1, status: .partial)
        failed.target = ["subject": "s"]
        failed.counts = ["OK": 1, "UNAVAILABLE": 1]
        failed.failedItems = [FailedItem(index: 1, item: "b", code: .unavailable, attempts: 6, message: nil)]
        failed.receipt = [
            ItemReceipt(item: "a", code: .ok, at: failed.completedAt), ItemReceipt(item: "b", code: .unavailable, at: failed.completedAt),
        ]
        var done = BatchProgressTests.outcome("x", items: 1, at: 2)
        done.target = ["subject": "s"]
        done.receipt = [ItemReceipt(item: "c", code: .ok, at: done.completedAt)]
        var deletions = manifest()
        deletions.op = .installationsDelete
        let receipt = self.receipt([failed, done], [first, second], manifest: deletions)
        let line = receipt.requests.first
        #expect(line?.status == "partial" && line?.itemsComplete == true)
        #expect(line?.items.map(\.item) == ["c", "a", "b"] && line?.items.map(\.code) == ["OK", "OK", "UNAVAILABLE"])
    }

    @Test("over several records, items whose codes are unknown (a compact outcome) or of another target never make the request succeeded")
    func unknownAndOtherTargetNotSucceeded() {
        let whole = PipelineRequest(id: "x", op: .topicsUnsubscribe, target: .topic("t1"), items: ["a", "b", "c"], batch: "gdpr-7")
        var replay = whole
        replay.items = ["b"]
        replay.replayOf = "x"
        var compact = outcome("x", items: 3, at: 1, status: .partial, op: .topicsUnsubscribe, target: ["topic": "t1"])
        compact.counts = ["OK": 1, "UNAVAILABLE": 1, "NOT_FOUND": 1]
        compact = compact.withoutItemLists(because: "too large")
        let settled = outcome("x", items: 1, at: 2, op: .topicsUnsubscribe, target: ["topic": "t1"])
        let unknown = receipt([compact, settled], [whole, replay])
        #expect(unknown.requests.first?.status == "partial" && unknown.requests.first?.itemsComplete == false)
        var elsewhere = whole
        elsewhere.target = .topic("t2")
        elsewhere.items = ["a"]
        var failed = outcome("x", items: 1, at: 1, status: .failed, op: .topicsUnsubscribe, target: ["topic": "t1"])
        failed.counts = ["UNAVAILABLE": 1]
        failed.failedItems = [FailedItem(index: 0, item: "a", code: .unavailable, attempts: 6, message: nil)]
        var one = whole
        one.items = ["a"]
        let other = outcome("x", items: 1, at: 2, op: .topicsUnsubscribe, target: ["topic": "t2"])
        let targets = receipt([failed, other], [one, elsewhere])
        #expect(targets.requests.first?.status == "partial", "\(targets.requests.first?.items ?? [])")
    }

    @Test("thousands of records of one id in a batch: the receipt stays linear, the records its outcome is not of listed as unanswered")
    func manyRecordsOfOneID() {
        let base = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a"], batch: "gdpr-7")
        let records = (0..<3_000).map { number in
            var record = base
            record.items = number == 0 ? ["i0", "j0"] : ["i\(number)"]
            return record
        }
        let ran = outcome("x", items: 2, at: 1, op: .topicsSubscribe, target: ["topic": "t"])
        let outcomes = (0..<400).map { BatchReceiptTests.record(ran, offset: Int64($0)) }
        let receipt = BatchReceipt(manifest: manifest(), outcomes: outcomes, requests: records, cancels: [])
        let line = receipt.requests.first
        #expect(line?.status == BatchReceipt.pending && line?.items.count == 3_001)
        #expect(line?.items.prefix(2).map(\.code) == ["OK", "OK"], "the reported outcome's own record keeps its codes")
    }

    @Test("an earlier record's codes are its call's, not a cancelled redelivery's; the status is each item's latest code")
    func cancelledRedeliveryOfAnEarlierRecord() {
        let first = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a", "b"], batch: "gdpr-7")
        var replay = first
        replay.items = ["b"]
        replay.replayOf = "x"
        var partial = outcome("x", items: 2, at: 1, status: .partial, op: .topicsSubscribe, target: ["topic": "t"])
        partial.counts = ["OK": 1, "UNAVAILABLE": 1]
        partial.failedItems = [FailedItem(index: 1, item: "b", code: .unavailable, attempts: 6, message: nil)]
        let settled = outcome("x", items: 1, at: 2, op: .topicsSubscribe, target: ["topic": "t"])
        var cancelled = outcome("x", items: 0, at: 3, status: .cancelled, op: .topicsSubscribe, target: ["topic": "t"])
        cancelled.counts = [Outcome.cancelledItems: 2]
        let receipt = BatchReceipt(
            manifest: manifest(),
            outcomes: [
                BatchReceiptTests.record(partial, offset: 0), BatchReceiptTests.record(settled, offset: 1), BatchReceiptTests.record(cancelled, offset: 2),
            ],
            requests: [first, replay], cancels: [])
        let line = receipt.requests.first
        #expect(line?.items.map(\.code) == ["OK", "OK", "UNAVAILABLE"], "\(line?.items ?? [])")
        #expect(line?.status == "succeeded", "b's latest line is the replay's OK")
        // A failed record and a cancelled one: nothing succeeded, so not partial.
        var failed = partial
        failed.status = .failed
        failed.counts = ["UNAVAILABLE": 2]
        failed.failedItems = [
            FailedItem(index: 0, item: "a", code: .unavailable, attempts: 6, message: nil),
            FailedItem(index: 1, item: "b", code: .unavailable, attempts: 6, message: nil),
        ]
        var cancelledReplay = cancelled
        cancelledReplay.counts = [Outcome.cancelledItems: 1]
        let none = self.receipt([failed, cancelledReplay], [first, replay])
        #expect(none.requests.first?.status == "failed", "\(none.requests.first?.items ?? [])")
    }

    @Test("the forged record cancelled, the real one refused as its duplicate: the request stays cancelled, the real FIDs listed without a code")
    func forgedThenCancelled() {
        var deletions = manifest()
        deletions.op = .installationsDelete
        let forged = PipelineRequest(id: "x", op: .installationsDelete, target: .subject("s"), items: ["junk"], batch: "gdpr-7")
        var real = forged
        real.items = ["fid-1", "fid-2"]
        var cancelled = BatchProgressTests.outcome("x", items: 0, at: 1, status: .cancelled)
        cancelled.counts = [Outcome.cancelledItems: 1]
        cancelled.target = ["subject": "s"]
        var refused = BatchProgressTests.outcome("x", items: 0, at: 2, status: .rejected)
        refused.duplicateOf = "requests/0/1"
        let receipt = self.receipt([cancelled, refused], [forged, real], manifest: deletions)
        let line = receipt.requests.first
        #expect(line?.status == "cancelled" && line?.itemsComplete == false)
        #expect(line?.items.map(\.item) == ["junk", "fid-1", "fid-2"] && line?.items.map(\.code) == [Outcome.cancelledItems, nil, nil])
    }

    @Test("a duplicate's rejection read before the outcome of the request in flight: the request is pending, not rejected")
    func duplicateBeforeTheOutcome() {
        var duplicate = outcome("r-1", items: 0, at: 1, status: .rejected, op: .topicsSubscribe, target: ["topic": "movies"])
        duplicate.duplicateOf = "requests/0/7"
        let receipt = self.receipt([duplicate], [request])
        #expect(receipt.requests.first?.status == BatchReceipt.pending)
        #expect(receipt.requests.first?.outcomes == 1 && receipt.outcomeRecords == 1, "still hashed and counted")
        let ran = outcome("r-1", items: 2, at: 2, op: .topicsSubscribe, target: ["topic": "movies"])
        let later = BatchReceipt(
            manifest: manifest(), outcomes: [BatchReceiptTests.record(duplicate, offset: 0), BatchReceiptTests.record(ran, offset: 1)], requests: [request],
            cancels: [])
        #expect(later.requests.first?.status == "succeeded" && later.requests.first?.items.map(\.code) == ["OK", "OK"])
    }

    @Test("two records of one id that both fit its succeeded outcome, with other items: which ran is unknown, so no item is OK")
    func noSingleRecordFits() {
        let one = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a"], batch: "gdpr-7")
        var other = one
        other.items = ["c"]
        let ran = outcome("x", items: 1, at: 1, op: .topicsSubscribe, target: ["topic": "t"])
        let receipt = self.receipt([ran], [one, other])
        let line = receipt.requests.first
        #expect(line?.items.allSatisfy { $0.code == nil } == true, "\(line?.items ?? [])")
        #expect(line?.itemsComplete == false)
        // A record whose items do not fit (its count) is not the one that ran, even alone.
        var longer = one
        longer.items = ["a", "c"]
        let alone = self.receipt([ran], [longer])
        #expect(alone.requests.first?.items.allSatisfy { $0.code == nil } == true && alone.requests.first?.itemsComplete == false)
    }

    @Test("the cancels listed: those naming the batch, one of its request ids, or only a bound; all their fields")
    func cancelsListed() throws {
        func cancel(_ batch: String?, _ id: String?, _ tag: String) -> ControlCancel {
            ControlCancel(
                pipeline: "deletions", batch: batch, requestID: id,
                producedBefore: batch == nil && id == nil ? BatchReceiptTests.created.addingTimeInterval(1) : nil,
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
