import Foundation
import InstanceAPI
import Kafka
import Testing

@testable import Pipeline

/// Issue 31, finding 4: what the worker publishes for a record stays within what the cluster takes,
/// whatever the record held.
@Suite("Dead letters and outcomes bounded in bytes")
struct DeadLetterBoundTests {
    let p0 = KafkaTopicPartition(topic: String(repeating: "t", count: 249), partition: 2_147_483_647)

    @Test("the headers stay within DeadLetterHeader.maxBytes whatever the id, the error and the codes")
    func headersBounded() {
        // One character of 400 kB in the error: cut by bytes, between scalars.
        let grapheme = "a" + String(repeating: "\u{301}", count: 200_000)
        let codes = (0..<500).map { "UNKNOWN(\(String(repeating: "c", count: 70))-\($0))" }
        let leftover = PipelineRequest(id: String(repeating: "é", count: 300_000), op: .topicsSubscribe, target: .topic("t"), items: ["a"])
        var headers = DeadLetter.leftover(leftover, key: nil, from: p0, offset: .max, lastError: grapheme, attempts: .max, codes: codes).headers
        headers.append(KafkaHeader(key: DeadLetterHeader.omittedBytes, string: "\(Int.max)"))
        #expect(DeadLetterHeader.bytes(of: headers) <= DeadLetterHeader.maxBytes)
        let error = headers.string(DeadLetterHeader.error) ?? ""
        #expect(error.utf8.count == DeadLetterHeader.maxErrorBytes - 1, "cut before the accent that would pass 2,000 bytes")
        #expect(grapheme.unicodeScalars.starts(with: error.unicodeScalars))
        #expect(headers.string(DeadLetterHeader.requestID) == RequestID.shortForm(String(repeating: "é", count: 300_000)))
        let listed = headers.string(DeadLetterHeader.codes)?.split(separator: ",").map(String.init) ?? []
        #expect(!listed.isEmpty && listed == Array(codes.prefix(listed.count)), "whole codes only")
        #expect(listed.joined(separator: ",").utf8.count <= DeadLetterHeader.maxCodesBytes)
    }

    @Test("a dead letter within its bound is published whole; past it, a stub with the coordinates, the reason and the bytes left out")
    func stub() {
        let key = Array(repeating: UInt8(ascii: "k"), count: 5_000)
        let record = KafkaRecord(topic: p0.topic, partition: p0.partition, offset: 41, key: key, value: Array(repeating: 0x20, count: 100_000))
        let letter = DeadLetter.rejected(record, RequestRejection(field: "id", reason: "has 600000 bytes", requestID: "r-1"), kind: .undecodable)
        let headers = letter.headers
        #expect(headers.string(DeadLetterHeader.error) == "id: has 600000 bytes" && headers.string(DeadLetterHeader.originalOffset) == "41")
        #expect(letter.bytes == 105_000 + DeadLetterHeader.bytes(of: headers))
        #expect(DeadLetter.fitted(letter, maxBytes: letter.bytes).value?.count == 100_000, "at the bound: whole")
        let stub = DeadLetter.fitted(letter, maxBytes: letter.bytes - 1)
        #expect(DeadLetter.isStub(stub) && !DeadLetter.isStub(letter))
        #expect(stub.value == nil && stub.key == Array(key.prefix(DeadLetter.maxStubKeyBytes)))
        #expect(Array(stub.headers.dropLast()) == headers, "the coordinates, id and reason as they were")
        #expect(stub.headers.string(DeadLetterHeader.omittedBytes) == "\(100_000 + 5_000 - 1_024)")
        #expect(stub.bytes <= DeadLetter.maxStubKeyBytes + DeadLetterHeader.maxBytes)
        #expect(DeadLetter.stub(of: stub).headers == stub.headers, "a stub of a stub is itself")
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 0, key: stub.key, value: stub.value, headers: stub.headers))
        #expect(read.omittedBytes == 103_976 && read.requestID == "r-1" && read.request == nil && read.replay() == nil)
        #expect(!DeadLetterFilter().matches(read), "a stub is never replayed: its record is at its original offset")
    }

    @Test("the producer takes a dead letter of maxDeadLetterBytes and an outcome of max-outcome-bytes, at any record size")
    func producerTakesTheBounds() throws {
        for recordBytes in [64, 4_096, 1 << 20, 64 << 20] {
            var pipeline = PipelineConfiguration(name: "p", requestTopic: "r")
            pipeline.maxRecordBytes = recordBytes
            let limit = try #require(pipeline.producerDefaults["message.max.bytes"].flatMap(Int.init))
            // librdkafka counts a record's key, value and headers, and a few dozen bytes more.
            #expect(limit >= pipeline.maxDeadLetterBytes + 1_024)
            #expect(limit >= pipeline.maxOutcomeBytes + RequestID.maxBytes + 1_024)
        }
    }

    @Test("an outcome without its item lists keeps its counts and says why, in a few hundred bytes whatever the request held")
    func compactOutcome() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = (0..<5_000).map { "fid-\($0)-" + String(repeating: "x", count: 100) }
        let outcome = Outcome(
            requestID: "d-1", op: .installationsDelete, target: ["subject": String(repeating: "s", count: 100_000)], status: .partial,
            counts: ["OK": 4_000, "NOT_FOUND": 1_000],
            failedItems: items.prefix(1_000).enumerated().map { FailedItem(index: $0.offset, item: $0.element, code: .notFound, attempts: 1, message: "gone") },
            receipt: items.map { ItemReceipt(item: $0, code: .ok, at: now) }, backendCalls: 5_000, receivedAt: now, completedAt: now)
        #expect(outcome.wireBytes(limit: .max).count > 500_000)
        let compact = outcome.withoutItemLists(because: "Kafka error MSG_SIZE_TOO_LARGE (10): Broker: Message size too large")
        let bytes = compact.wireBytes(limit: .max)
        #expect(bytes.count < 1_000, "\(bytes.count) bytes")
        #expect(compact.counts == outcome.counts && compact.status == .partial && compact.requestID == "d-1")
        #expect(compact.failedItems.isEmpty && compact.receipt == nil)
        #expect(compact.target["subject"]?.utf8.count == Outcome.maxCompactTargetBytes)
        #expect(compact.reason?.contains("MSG_SIZE_TOO_LARGE") == true)
        let read = try? Outcome.decoder().decode(Outcome.self, from: Data(bytes))
        #expect(read == compact, "it is an outcome like any other on the wire")
    }
    @Test(
        "an outcome without its item lists leaves out a notification key longer than a target value may be (never cut: a cut key is another key), and keeps a real one"
    )
    func compactNotificationKey() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var outcome = Outcome(
            requestID: "g", op: .groupsAdd, target: ["notificationKeyName": "f"], status: .succeeded, counts: ["OK": 1], failedItems: [],
            notificationKey: String(repeating: "k", count: 490_000), backendCalls: 1, receivedAt: now, completedAt: now)
        let compact = outcome.withoutItemLists(because: "MSG_SIZE_TOO_LARGE")
        #expect(compact.wireBytes(limit: .max).count < 1_000, "\(compact.wireBytes(limit: .max).count) bytes")
        #expect(compact.notificationKey == nil)
        for (bytes, kept) in [(146, true), (APILimits.answeredTokenBytes, true), (APILimits.answeredTokenBytes + 1, false)] {
            let key = "APA91b" + String(repeating: "x", count: bytes - 6)
            outcome.notificationKey = key
            #expect((outcome.withoutItemLists(because: "MSG_SIZE_TOO_LARGE").notificationKey == key) == kept, "\(bytes) bytes")
        }
    }
}
