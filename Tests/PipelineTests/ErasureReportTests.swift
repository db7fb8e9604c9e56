import Foundation
import InstanceAPI
import Kafka
import TestSupport
import Testing

@testable import Pipeline

/// `iidbatch outcomes --subject S` must never say ERASED while one of S's deletions is not proven
/// done by success receipt lines: rejected, cancelled and compact outcomes hide installations.
@Suite("Erasure report: no verdict of erased without a success receipt line for every installation")
struct ErasureReportTests {
    let t0 = Date(timeIntervalSince1970: 1_000)

    private func deletion(
        _ id: String, _ lines: [(String, ResultCode)]?, status: OutcomeStatus = .succeeded, subject: String? = "user-42", op: RequestOp? = .installationsDelete,
        replayOf: String? = nil, reason: String? = nil, counts: [String: Int]? = nil, batch: String? = nil
    ) -> Outcome {
        Outcome(
            requestID: id, op: op, target: subject.map { ["subject": $0] } ?? [:], status: status,
            counts: counts ?? Dictionary(lines?.map { ($0.1.rawValue, 1) } ?? [], uniquingKeysWith: +), failedItems: [],
            receipt: lines?.map { ItemReceipt(item: $0.0, code: $0.1, at: t0) }, reason: reason, replayOf: replayOf, batch: batch, backendCalls: 1,
            receivedAt: t0, completedAt: t0)
    }

    private func rejectedOutcome(_ json: String, decoder: RequestDecoder = RequestDecoder()) throws -> Outcome {
        var book = RequestBook(maxInFlightItems: 100, maxInFlightBytes: 1 << 20)
        let partition = KafkaTopicPartition(topic: "requests", partition: 0)
        _ = book.assign([partition])
        let record = KafkaRecord(topic: partition.topic, partition: partition.partition, offset: 0, key: nil, value: Array(json.utf8))
        guard case .rejected(let publication) = book.receive(record, decoder.decode(record.value!), at: t0) else {
            throw FixtureFailure("not rejected: \(json)")
        }
        return publication.outcome
    }

    @Test("a rejected deletion of the subject (an empty installation) keeps it from being erased, naming the request and why")
    func rejectedDeletion() throws {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        let rejected = try rejectedOutcome(#"{"id":"d-2","op":"installations.delete","subject":"user-42","installations":["fid-c",""]}"#)
        #expect(rejected.target["subject"] == "user-42", "the rejected outcome keeps the subject it could read")
        #expect(report.concerns(rejected))
        report.add(rejected)
        #expect(!report.isErased && report.erasedAt == nil)
        #expect(report.doubts.count == 1)
        #expect(report.doubts.first?.hasPrefix("d-2 rejected: installations[1]") == true, "\(report.doubts)")
    }

    /// The batch-receipt audit: outcomes are kept 7 days and dead letters 30, so a dead letter
    /// replayed on day 8 leaves only the replay's outcome, which lists only the items it carried.
    @Test("a replay's outcome without its original's leaves the subject not erased: the original's other installations are unknown")
    func replayWithoutItsOriginal() {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-b", .ok)], replayOf: "d-1"))
        #expect(!report.isErased, "the original's fid-a (INVALID_ARGUMENT) and fid-c are not in the replay's outcome")
        #expect(report.doubts.count == 1 && report.doubts.first?.hasPrefix("d-1: only a replay's outcome") == true, "\(report.doubts)")
        var both = ErasureReport(subject: "user-42")
        both.add(deletion("d-1", [("fid-a", .ok), ("fid-b", .unavailable), ("fid-c", .ok)]))
        both.add(deletion("d-1", [("fid-b", .ok)], replayOf: "d-1"))
        #expect(both.isErased && both.doubts.isEmpty, "the original's outcome lists them all, the replay settles fid-b: \(both.doubts)")
    }

    @Test("a rejected record naming the subject but no readable op still counts; another subject's does not")
    func rejectedWithoutOp() throws {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        let other = try rejectedOutcome(#"{"id":"d-8","op":"installations.delete","subject":"user-7","installations":[""]}"#)
        let added = report.add(other)
        #expect(!added && report.isErased)
        let typo = try rejectedOutcome(#"{"id":"d-9","op":"installations.delet","subject":"user-42","installations":["fid-d"]}"#)
        let typoAdded = report.add(typo)
        #expect(typoAdded)
        #expect(!report.isErased && report.doubts.first?.hasPrefix("d-9 rejected: op") == true, "\(report.doubts)")
    }

    @Test(
        "a deletion rejected unparsed (too large, not JSON) names the subject its bytes name, and keeps it from being erased",
        arguments: [
            (#"{"id":"d-2","op":"installations.delete","subject":"user-42","installations":["fid-b","fid-c","fid-d","fid-e"]}"#, 64),
            (#"{"id":"d-2","op":"installations.delete","subject" : "user-42","installations":["fid-b",]}"#, 1 << 20),
            (#"{"id":"d-2","op":"installations.delete","note":"subject","subject":"user\u002d42","installations":["fid-b"],}"#, 1 << 20),
        ])
    func rejectedUnparsed(json: String, maxRecordBytes: Int) throws {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        let rejected = try rejectedOutcome(json, decoder: RequestDecoder(maxRecordBytes: maxRecordBytes))
        #expect(rejected.op == nil && rejected.target["subject"] == "user-42", "\(rejected.target)")
        report.add(rejected)
        #expect(!report.isErased && report.doubts.count == 1, "\(report.doubts)")
        // No subject to be found, or an empty one: none named.
        for bytes in [#"{"id":"d-3","subject":"#, #"{"subject":"","id":"x",}"#, #"{"subject": 42,}"#, "\"subject\"" + String(repeating: " ", count: 10)] {
            #expect(RequestDecoder.scannedSubject(Array(bytes.utf8)) == nil, "\(bytes)")
        }
    }

    @Test("a record of the outcome topic that is no outcome but names the subject keeps it from being erased; one naming another does not")
    func unreadableOutcome() {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        let position = RecordPosition(topic: "outcomes", partition: 1, offset: 9)
        let other = report.addUnreadable(Array(#"{"target":{"subject":"user-7"},"failedItems":[{"message":"x"#.utf8), at: position)
        let longer = report.addUnreadable(Array(#"{"target":{"subject":"user-420"}}"#.utf8), at: position)
        #expect(!other && !longer && report.isErased)
        let this = report.addUnreadable(Array(#"{"status":"failed","target":{"subject":"user-42"},"failedItems":[{"message":"x"#.utf8), at: position)
        #expect(this)
        #expect(!report.isErased && report.doubts == ["a record at outcomes/1/9 names this subject but is no outcome the tools can read; check it with kcat"])
    }

    /// A cancelled delivery's outcome as the worker writes it: a `CANCELLED` line per installation.
    private func cancelled(_ id: String, _ items: [String], batch: String? = nil, at: Date? = nil) -> Outcome {
        Outcome(
            requestID: id, op: .installationsDelete, target: ["subject": "user-42"], status: .cancelled, counts: ["CANCELLED": items.count],
            failedItems: [], receipt: items.map { ItemReceipt(item: $0, code: .cancelled, at: at ?? t0) },
            reason: "cancelled with no backend call made for it in this delivery: c-1", batch: batch, backendCalls: 0, receivedAt: t0,
            completedAt: at ?? t0)
    }

    @Test("a cancelled deletion's installations stay outstanding until a delivery that called settles each, whatever its id or batch")
    func cancelledDeletion() {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        report.add(cancelled("d-3", ["fid-e"]))
        #expect(!report.isErased && report.outstanding.map(\.item) == ["fid-e"])
        // Submitted again (another batch, the same derived id): deleted this time.
        report.add(deletion("d-3", [("fid-e", .alreadyAbsent)], batch: "again"))
        #expect(report.isErased && report.doubts.isEmpty)
        // A delivery that called, cut short before its outcome, then redelivered and cancelled:
        // the cancel comes later and leaves what the first delivery did.
        var redelivered = ErasureReport(subject: "user-42")
        redelivered.add(deletion("d-4", [("fid-f", .ok)]))
        redelivered.add(cancelled("d-4", ["fid-f"], at: t0 + 60))
        #expect(redelivered.isErased)
        // A cancelled outcome written before cancelled outcomes listed their installations.
        var old = ErasureReport(subject: "user-42")
        old.add(deletion("d-1", [("fid-a", .ok)]))
        old.add(deletion("d-5", nil, status: .cancelled, reason: "cancelled: c-1", counts: ["CANCELLED": 1]))
        old.add(deletion("d-5", [("fid-g", .ok)]))
        #expect(!old.isErased && old.doubts.first?.hasPrefix("d-5 cancelled, its installations not listed") == true, "\(old.doubts)")
    }

    @Test("a request id used again for other installations settles nothing of the first")
    func reusedID() {
        // The phones' request cancelled; the tablets' request, submitted with the same id prefix
        // (the same id, the same count, even the same batch), deleted.
        var report = ErasureReport(subject: "user-42")
        report.add(cancelled("user-42-000001", ["phone-a"], batch: "gdpr"))
        report.add(deletion("user-42-000001", [("tablet-a", .ok)], batch: "gdpr"))
        #expect(!report.isErased && report.outstanding.map(\.item) == ["phone-a"], "the tablets' receipt settled the phones")
        // A compact outcome (its lines left out) stays a doubt whatever comes later under its id.
        var compact = ErasureReport(subject: "user-42")
        compact.add(
            deletion("user-42-000002", [("p-1", .ok), ("p-2", .permissionDenied)], status: .partial, batch: "gdpr")
                .withoutItemLists(because: "too large"))
        compact.add(deletion("user-42-000002", [("t-1", .ok), ("t-2", .ok)], batch: "gdpr"))
        #expect(!compact.isErased && compact.doubts.count == 1, "\(compact.doubts)")
    }

    @Test("a compact outcome (no receipt lines) keeps the subject from being erased and says where to look")
    func compactOutcome() {
        let full = deletion("d-5", [("fid-g", .ok)], status: .succeeded)
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        report.add(full.withoutItemLists(because: "Broker: Message size too large"))
        #expect(!report.isErased)
        #expect(report.doubts.first?.contains("d-5: outcome without receipt lines") == true, "\(report.doubts)")
        #expect(report.doubts.first?.contains("iidbatch batches receipt") == true)
        // Only doubts, no receipt line at all: not erased either.
        var only = ErasureReport(subject: "user-42")
        only.add(full.withoutItemLists(because: "too large"))
        #expect(!only.isErased && only.installations.isEmpty && only.doubts.count == 1)
    }

    @Test("a compact outcome whose subject was cut to its first bytes cannot be told apart: not erased, saying so")
    func cutSubject() {
        let long = String(repeating: "s", count: Outcome.maxCompactTargetBytes) + "-user-42"
        let compact = deletion("d-6", [("fid-h", .ok)], subject: long).withoutItemLists(because: "too large")
        #expect(compact.target["subject"] != long, "the fixture cuts the subject")
        var report = ErasureReport(subject: long)
        report.add(deletion("d-1", [("fid-a", .ok)], subject: long))
        #expect(report.isErased)
        #expect(report.concerns(compact))
        report.add(compact)
        #expect(!report.isErased)
        #expect(report.doubts.first?.contains("d-6") == true && report.doubts.first?.contains("cut") == true, "\(report.doubts)")
        // A subject that is not the cut one's prefix is not concerned.
        #expect(!ErasureReport(subject: "user-42").concerns(compact))
    }

    @Test("erased: every installation of every deletion seen has a success line, and nothing else was seen")
    func erasedWhenAllLinesSucceed() {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok), ("fid-b", .alreadyAbsent)]))
        report.add(deletion("d-2", [("fid-c", .notFound)], status: .failed))
        #expect(!report.isErased && report.outstanding.map(\.item) == ["fid-c"])
        #expect(report.doubts.isEmpty)
    }

    @Test("installation ids are told apart byte by byte: a Kelvin sign is not a K, and its ALREADY_ABSENT settles nothing of fidK")
    func canonicallyEquivalentIDs() {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fidK0123", .permissionDenied)], status: .failed))
        let kelvin = "fid\u{212A}0123"
        #expect(kelvin == "fidK0123", "Swift's String equality is canonical equivalence")
        var later = deletion("d-2", [(kelvin, .alreadyAbsent)])
        later.receipt = later.receipt?.map { ItemReceipt(item: $0.item, code: $0.code, at: t0.addingTimeInterval(60)) }
        report.add(later)
        #expect(!report.isErased)
        #expect(report.installations.count == 2)
        #expect(report.outstanding.map(\.item).elementsEqual(["fidK0123"], by: { $0.utf8.elementsEqual($1.utf8) }), "\(report.outstanding)")
    }

    @Test("a subject is matched byte by byte: a canonically equal but other subject's deletions are not this one's")
    func canonicallyEquivalentSubject() {
        let report = ErasureReport(subject: "user-K")
        #expect(!report.concerns(deletion("d-1", [("fid-a", .ok)], subject: "user-\u{212A}")))
        #expect(report.concerns(deletion("d-2", [("fid-a", .ok)], subject: "user-K")))
    }
}

extension ErasureReportTests {
    private func position(_ offset: Int64) -> RecordPosition {
        RecordPosition(KafkaRecord(topic: "deletions", partition: 1, offset: offset, key: nil, value: []))
    }

    @Test("a deletion of the subject read from its request topic without an outcome keeps it not erased until its outcome is read")
    func pendingDeletion() throws {
        var report = ErasureReport(subject: "user-42")
        let pending = PipelineRequest(id: "d-2", op: .installationsDelete, target: .subject("user-42"), items: ["fid-b"])
        let other = PipelineRequest(id: "d-9", op: .installationsDelete, target: .subject("user-7"), items: ["fid-z"])
        let taken = report.addRequest(pending, value: [], at: position(4))
        let ignored = report.addRequest(other, value: [], at: position(5))
        #expect(taken && !ignored, "another subject's is not taken")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        #expect(!report.isErased)
        #expect(
            report.doubts == [
                "d-2 (at deletions/1/4) has no outcome: its deletion has not run to its end (or its outcome is past the outcome topic's retention)"
            ], "\(report.doubts)")
        report.add(deletion("d-2", [("fid-b", .ok)]))
        #expect(report.isErased, "\(report.doubts)")
    }

    @Test("a request record no worker can read that names the subject keeps it not erased; one naming another does not")
    func unreadableRequest() throws {
        var report = ErasureReport(subject: "user-42")
        report.add(deletion("d-1", [("fid-a", .ok)]))
        let ignored = report.addRequest(nil, value: Array(#"{"subject": "user-7", "installations": 5}"#.utf8), at: position(1))
        #expect(!ignored && report.isErased)
        let taken = report.addRequest(nil, value: Array(#"{"subject": "user-42", "installations": 5}"#.utf8), at: position(2))
        #expect(taken)
        #expect(!report.isErased)
        #expect(report.doubts.first?.contains("deletions/1/2") == true, "\(report.doubts)")
    }

    @Test("two deletion records of one id are two deletions: the outcome of the first, naming its record, does not answer the second")
    func twoRecordsOfOneID() {
        var report = ErasureReport(subject: "user-42")
        let first = PipelineRequest(id: "erase-42", op: .installationsDelete, target: .subject("user-42"), items: ["fid-a"])
        let second = PipelineRequest(id: "erase-42", op: .installationsDelete, target: .subject("user-42"), items: ["fid-new"])
        report.addRequest(first, value: [], at: position(1))
        report.addRequest(second, value: [], at: position(9))
        var answered = deletion("erase-42", [("fid-a", .ok)])
        answered.record = position(1)
        report.add(answered)
        #expect(!report.isErased)
        #expect(
            report.doubts == [
                "erase-42 (at deletions/1/9) has no outcome: its deletion has not run to its end (or its outcome is past the outcome topic's retention)"
            ], "\(report.doubts)")
    }
}
