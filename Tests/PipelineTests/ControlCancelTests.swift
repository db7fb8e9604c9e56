import Foundation
import Kafka
import Pipeline
import Testing

/// `ControlCancel` on the wire and on the board: a record of its own per cancel, read strictly,
/// kept beside the overrides, lifted by its tombstone.
@Suite("Live control: cancels, records of their own in the control topic")
struct ControlCancelTests {
    private let bound = Date(timeIntervalSince1970: 1_800_000_000)

    private func record(_ offset: Int64, _ key: String, _ value: [UInt8]?) -> KafkaRecord {
        KafkaRecord(topic: ControlTopic.defaultName, partition: 0, offset: offset, key: Array(key.utf8), value: value)
    }

    private func cancel(_ pipeline: String, batch: String? = "gdpr-7", requestID: String? = nil, version: Int = 1, tag: String = "t1") -> ControlCancel {
        ControlCancel(
            pipeline: pipeline, batch: batch, requestID: requestID, producedBefore: bound, version: version, updatedAt: bound, updatedBy: "alice",
            reason: "wrong list", tag: tag)
    }

    @Test("a record at the highest version does not make every later cancel or document one no worker reads")
    func highestVersionKeepsWritesReadable() throws {
        var board = ControlBoard()
        let top = cancel("deletions", version: ControlDocument.maxVersion, tag: "x")
        #expect(board.receive(record(0, top.recordKey, top.jsonBytes())) == .cancelled(scope: "deletions", top))
        #expect(board.receive(record(1, top.recordKey, nil)) == .cancelLifted(scope: "deletions", tag: "x"))
        let next = cancel("deletions", version: board.nextCancelVersion(of: "deletions"), tag: "y")
        #expect(board.receive(record(2, next.recordKey, next.jsonBytes())) == .cancelled(scope: "deletions", next))
        let document = ControlDocument(version: ControlDocument.maxVersion, updatedAt: bound, updatedBy: "a", reason: "r", overrides: [.paused: .flag(true)])
        #expect(board.receive(record(3, "deletions", document.jsonBytes())) == .activated(scope: "deletions", document))
        let later = ControlDocument(version: board.nextVersion(of: "deletions"), updatedAt: bound, updatedBy: "a", reason: "r", overrides: [:])
        #expect(board.receive(record(4, "deletions", later.jsonBytes())) == .activated(scope: "deletions", later))
        let over = Array(#"{"version":1000000000000000,"updatedAt":"2026-01-01T00:00:00.000Z","updatedBy":"a","reason":"r","overrides":{}}"#.utf8)
        guard case .refused = board.receive(record(5, "deletions", over)) else {
            Issue.record("a version past the highest was read")
            return
        }
    }

    @Test("a cancel's author and reason are cut in what each matched request logs and its outcome says")
    func longReasonIsCutWhereShown() {
        var long = cancel("deletions")
        long.reason = String(repeating: "why ", count: 250_000)
        long.updatedBy = String(repeating: "b", count: 100_000)
        #expect(long.description.utf8.count < 1_024, "\(long.description.utf8.count) bytes")
        var board = ControlBoard()
        let document = ControlDocument(version: 1, updatedAt: bound, updatedBy: long.updatedBy, reason: long.reason, overrides: [:])
        #expect(board.receive(record(0, "deletions", document.jsonBytes())).description.utf8.count < 1_024)
    }

    @Test("a cancel reads back as written; its key names the pipeline and is no scope of an override")
    func roundTrip() throws {
        let written = cancel(ControlSettingsTests.file.name, requestID: "r-1")
        var board = ControlBoard()
        let change = board.receive(record(0, written.recordKey, written.jsonBytes()))
        #expect(change == .cancelled(scope: written.pipeline, written))
        #expect(change.affects(pipeline: written.pipeline) && !change.affects(pipeline: "other"))
        #expect(board.documents.isEmpty, "no override scope is made of a cancel")
        #expect(board.settings(for: ControlSettingsTests.file).cancels == [written])
        #expect(board.nextCancelVersion(of: written.pipeline) == 2)
        #expect(ControlCancel.split(key: "topics") == nil)
        for key in ["topics/cancel/", "*/cancel/t1", "/cancel/t1"] {
            guard case .refused(_, let error) = board.receive(record(1, key, written.jsonBytes())) else {
                Issue.record("\(key) was not refused")
                continue
            }
            #expect("\(error)".contains("naming one pipeline"), "\(key): \(error)")
        }
    }

    @Test("cancels add up, a later override does not replace them, and a tombstone of one lifts only it")
    func addUpAndLift() {
        let file = ControlSettingsTests.file
        var board = ControlBoard()
        let first = cancel(file.name)
        let second = cancel(file.name, batch: "other", version: 2, tag: "t2")
        _ = board.receive(record(0, first.recordKey, first.jsonBytes()))
        _ = board.receive(record(1, second.recordKey, second.jsonBytes()))
        _ = board.receive(record(2, file.name, ControlSettingsTests.document(1, #"{"paused": true}"#)))
        #expect(board.settings(for: file).cancels == [first, second])
        #expect(board.settings(for: file).paused)
        #expect(board.receive(record(3, first.recordKey, nil)) == .cancelLifted(scope: file.name, tag: "t1"))
        #expect(board.settings(for: file).cancels == [second])
    }

    @Test("a malformed cancel is refused naming the field, and changes nothing")
    func refusesMalformed() {
        let file = ControlSettingsTests.file
        let key = "\(file.name)\(ControlCancel.keyMarker)t9"
        let head = #""updatedAt":"2026-11-25T10:00:00Z","updatedBy":"a""#
        let before = #""producedBefore":"2026-11-25T10:00:00Z""#
        let cases: [(String, String)] = [
            (#"{"version":1,\#(head),"reason":"r","cancel":{}}"#, "an empty cancel would cancel everything"),
            (#"{"version":1,\#(head),"reason":"r","cancel":{"producedBefore":"today"}}"#, #"cancel.producedBefore must be an ISO 8601 time, got "today""#),
            (#"{"version":1,\#(head),"reason":"r","cancel":{"batch":7}}"#, "cancel.batch must be a batch name, got 7"),
            (#"{"version":1,\#(head),"reason":"r","cancel":{\#(before),"batch":"a b"}}"#, "cancel.batch"),
            (#"{"version":1,\#(head),"reason":"r","cancel":{\#(before),"bach":"x"}}"#, "cancel.bach"),
            (#"{"version":0,\#(head),"reason":"r","cancel":{\#(before)}}"#, "version"),
            (#"{"version":1,\#(head),"cancel":{\#(before)}}"#, "reason"),
        ]
        var board = ControlBoard()
        for (offset, (json, field)) in cases.enumerated() {
            let change = board.receive(record(Int64(offset), key, Array(json.utf8)))
            guard case .refused(let scope, let error) = change else {
                Issue.record("\(json) was not refused: \(change)")
                continue
            }
            #expect(scope == file.name)
            #expect("\(error)".contains(field), "\(error)")
        }
        #expect(board.settings(for: file).cancels.isEmpty)
    }

    @Test("a cancel matches by batch and id, and only records produced before its bound (a record without a timestamp counts as before)")
    func matching() {
        let request = PipelineRequest(id: "r-1", op: .installationsDelete, target: .subject(nil), items: ["f"], batch: "gdpr-7")
        #expect(cancel("p").matches(request, producedAt: bound.addingTimeInterval(-1)))
        #expect(!cancel("p").matches(request, producedAt: bound), "at the bound is after it")
        #expect(cancel("p").matches(request, producedAt: nil))
        #expect(!cancel("p", batch: "other").matches(request, producedAt: nil))
        #expect(cancel("p", batch: nil, requestID: "r-1").matches(request, producedAt: nil))
        #expect(!cancel("p", batch: "gdpr-7", requestID: "r-2").matches(request, producedAt: nil), "every condition given must hold")
        #expect(cancel("p", batch: nil).matches(request, producedAt: nil), "only the bound: everything produced before it")
        var unbounded = cancel("p")
        unbounded.producedBefore = nil
        #expect(unbounded.matches(request, producedAt: bound.addingTimeInterval(3_600)), "no bound: the batch whenever produced")
        #expect((try? ControlCancel.parse(key: unbounded.recordKey, unbounded.jsonBytes())) == unbounded, "a cancel without a bound reads back as one")
    }

    @Test("a batch name: letters, digits, '.', '_', '-', starting alphanumeric, at most 128; a derived one is valid")
    func batchNames() {
        #expect(BatchName.problem(with: "gdpr-2026.11_a") == nil)
        for bad in ["", "-x", "a b", "ü", String(repeating: "a", count: 129), "a/b"] { #expect(BatchName.problem(with: bad) != nil, "\(bad)") }
        #expect(BatchName.problem(with: "gdpr 7")?.contains("' ' (at byte 4)") == true, "names the character")
        #expect(BatchName.problem(with: "gdprü")?.contains("'ü'") == true)
        let derived = BatchName.derived(from: "/data/Subjects (EU).csv", at: bound)
        #expect(BatchName.problem(with: derived) == nil, "\(derived)")
        #expect(derived.hasPrefix("Subjects--EU-") && derived.hasSuffix("-20270115T080000Z"), "\(derived)")
        #expect(BatchName.problem(with: BatchName.derived(from: String(repeating: "é", count: 300), at: bound)) == nil)
        #expect(BatchName.derived(from: nil, at: bound).hasPrefix("stdin-"))
    }

    @Test("a name a batch has already becomes the first of name-2, name-3, … none has, within the length limit")
    func unusedNames() {
        let taken: Set = ["stdin-20270115T080000Z", "stdin-20270115T080000Z-2", String(repeating: "a", count: 128)]
        #expect(BatchName.unused("fresh", taken: taken.contains) == "fresh")
        #expect(BatchName.unused("stdin-20270115T080000Z", taken: taken.contains) == "stdin-20270115T080000Z-3")
        let long = BatchName.unused(String(repeating: "a", count: 128), taken: taken.contains)
        #expect(long == String(repeating: "a", count: 126) + "-2" && BatchName.problem(with: long) == nil)
    }
}
