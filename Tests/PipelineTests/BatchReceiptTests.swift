import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing
import WireJSON

@Suite("Batch receipts")
struct BatchReceiptTests {
    static let created = BatchManifestTests.created

    static func record(_ outcome: Outcome, topic: String = "outcomes", partition: Int32 = 0, offset: Int64) -> (record: KafkaRecord, outcome: Outcome) {
        let value = Array(try! Outcome.encoder().encode(outcome))
        return (KafkaRecord(topic: topic, partition: partition, offset: offset, key: Array(outcome.requestID.utf8), value: value), outcome)
    }

    @Test("deletions: each item from its receipt line; a repeated outcome reported by the last by offset, every one hashed")
    func deletions() throws {
        let manifest = BatchManifestTests.manifest(.submitted)
        let at1 = Self.created.addingTimeInterval(1)
        let at2 = Self.created.addingTimeInterval(2)
        var first = BatchProgressTests.outcome("r-1", items: 2, at: 3)
        first.target = ["subject": "s"]
        first.receipt = [ItemReceipt(item: "fid-a", code: .ok, at: at1), ItemReceipt(item: "fid-b", code: .alreadyAbsent, at: at2)]
        var again = first
        again.completedAt = Self.created.addingTimeInterval(9)
        again.receipt = [ItemReceipt(item: "fid-a", code: .ok, at: at2), ItemReceipt(item: "fid-b", code: .alreadyAbsent, at: at2)]
        let other = BatchProgressTests.outcome("r-9", batch: "other", items: 1, at: 1)
        let records = [Self.record(again, partition: 1, offset: 7), Self.record(other, offset: 0), Self.record(first, partition: 1, offset: 3)]
        let pending = PipelineRequest(id: "r-2", op: .installationsDelete, target: .subject("s"), items: ["fid-c"], batch: "gdpr-7")
        let receipt = BatchReceipt(manifest: manifest, outcomes: records, requests: [pending], cancels: [])
        #expect(receipt.outcomeRecords == 2)
        #expect(receipt.requests.map(\.id) == ["r-1", "r-2"])
        let r1 = receipt.requests[0]
        #expect(r1.outcome == "outcomes/1/7" && r1.outcomes == 2)
        #expect(
            r1.items == [
                BatchReceipt.Item(index: 0, item: "fid-a", code: "OK", at: at2), BatchReceipt.Item(index: 1, item: "fid-b", code: "ALREADY_ABSENT", at: at2),
            ])
        #expect(receipt.requests[1].status == BatchReceipt.pending && receipt.requests[1].items.map(\.code) == [nil])
        // The digest: offset 3 before offset 7, the other batch's record left out.
        var hashed: [UInt8] = []
        for offset in [Int64(3), 7] {
            let value = try #require(records.first { $0.record.offset == offset }?.record.value)
            hashed += Array("outcomes 1 \(offset) \(value.count)\n".utf8) + value + [10]
        }
        #expect(receipt.outcomesSHA256 == BatchManifest.inputDigest(hashed))
        #expect(receipt.itemsByCode == ["OK": 1, "ALREADY_ABSENT": 1, "none": 1])
        #expect(receipt.requestsByStatus == ["succeeded": 1, "pending": 1])
    }

    @Test("other ops: failed items from failedItems, the rest from the request record with OK and completedAt; only failed items without the record")
    func otherOps() throws {
        var manifest = BatchManifestTests.manifest(.submitted)
        manifest.op = .topicsSubscribe
        var outcome = BatchProgressTests.outcome("r-1", items: 3, at: 4, status: .partial)
        outcome.target = ["topic": "movies"]
        outcome.op = .topicsSubscribe
        outcome.counts = ["OK": 2, "NOT_FOUND": 1]
        outcome.failedItems = [FailedItem(index: 1, item: "t,2", code: .notFound, attempts: 1, message: nil)]
        var lone = BatchProgressTests.outcome("r-2", items: 2, at: 5, status: .failed)
        lone.target = ["topic": "movies"]
        lone.counts = ["INTERNAL": 2]
        lone.failedItems = [FailedItem(index: 0, item: "u1", code: .internal, attempts: 8, message: nil)]
        let request = PipelineRequest(id: "r-1", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t,2", "t\"3"], batch: "gdpr-7")
        let receipt = BatchReceipt(
            manifest: manifest, outcomes: [Self.record(outcome, offset: 0), Self.record(lone, offset: 1)], requests: [request], cancels: [])
        let done = outcome.completedAt
        #expect(
            receipt.requests[0].items == [
                BatchReceipt.Item(index: 0, item: "t1", code: "OK", at: done), BatchReceipt.Item(index: 1, item: "t,2", code: "NOT_FOUND", at: done),
                BatchReceipt.Item(index: 2, item: "t\"3", code: "OK", at: done),
            ])
        #expect(receipt.requests[0].itemsComplete)
        #expect(!receipt.requests[1].itemsComplete && receipt.requests[1].items.map(\.item) == ["u1"])
        let csv = receipt.csv()
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines[0] == "batch,request_id,request_status,index,item,code,at")
        #expect(lines[2] == "gdpr-7,r-1,partial,1,\"t,2\",NOT_FOUND,\(WireDate.text(done))")
        #expect(lines[3] == "gdpr-7,r-1,partial,2,\"t\"\"3\",OK,\(WireDate.text(done))")
        #expect(lines.count == 6 && lines[5].isEmpty, "\(csv)")
    }

    @Test(
        "a CSV field is quoted by its bytes: a quote, comma, CR or LF inside one character (a combining mark after it, a prepend before it) is quoted and doubled"
    )
    func csvQuotesByBytes() {
        for (field, written) in [
            ("\"\u{301}", "\"\"\"\u{301}\""), (",\u{301}", "\",\u{301}\""), ("\u{600},", "\"\u{600},\""), ("a\r\u{301}", "\"a\r\u{301}\""),
            ("q\"\u{301}x", "\"q\"\"\u{301}x\""), ("plain", "plain"),
        ] {
            #expect(Array(BatchReceipt.csvField(field).utf8) == Array(written.utf8), "\(Array(field.unicodeScalars))")
        }
    }

    @Test("the JSON document names the cancels of the batch, the totals and the digest, and parses")
    func document() throws {
        let manifest = BatchManifestTests.manifest(.submitted)
        let mine = ControlCancel(
            pipeline: "deletions", batch: "gdpr-7", requestID: nil, producedBefore: Self.created, version: 2, updatedAt: Self.created, updatedBy: "bob",
            reason: "wrong list", tag: "t1")
        var theirs = mine
        theirs.batch = "gdpr-8"
        let receipt = BatchReceipt(manifest: manifest, outcomes: [], requests: [], cancels: [mine, theirs])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(receipt.jsonBytes())) as? [String: Any])
        let cancels = try #require(document["cancels"] as? [[String: Any]])
        #expect(cancels.count == 1 && cancels[0]["by"] as? String == "bob" && cancels[0]["reason"] as? String == "wrong list")
        #expect(document["outcomesSha256"] as? String == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(document["batch"] as? String == "gdpr-7")
    }
}
