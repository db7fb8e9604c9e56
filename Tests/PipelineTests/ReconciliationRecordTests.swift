import Foundation
import InstanceAPI
import Pipeline
import Testing

/// Replay outcomes told apart by the record they answer (`Outcome.record`).
@Suite("Reconciliation by record")
struct ReconciliationRecordTests {
    private func original(_ failed: [(Int, String)]) -> Outcome {
        Outcome(
            requestID: "r", op: .topicsSubscribe, target: ["topic": "t"], status: .failed, counts: ["UNAVAILABLE": failed.count],
            failedItems: failed.map { FailedItem(index: $0.0, item: $0.1, code: .unavailable, attempts: 3, message: nil) },
            record: at(1), backendCalls: 1, receivedAt: .now, completedAt: .now)
    }

    private func replayOutcome(ok: Int, record: RecordPosition?) -> Outcome {
        Outcome(
            requestID: "r", op: .topicsSubscribe, target: ["topic": "t"], status: .succeeded, counts: ["OK": ok], failedItems: [],
            replayOf: "r", record: record, backendCalls: 1, receivedAt: .now, completedAt: .now)
    }

    private func replay(_ items: [String]) -> PipelineRequest {
        PipelineRequest(id: "r", op: .topicsSubscribe, target: .topic("t"), items: items, replayOf: "r", priorAttempts: 3)
    }

    private func at(_ offset: Int64) -> RecordPosition { RecordPosition(topic: "requests", partition: 0, offset: offset) }

    /// Request r, whose items a and b failed, and two dead letters of it replayed, one record
    /// each: a at offset 10, b at 11.
    private func twoReplaysRead() -> Reconciliation {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a"), (1, "b")]))
        reconciliation.expectReplay(replay(["a"]), at: at(10))
        reconciliation.expectReplay(replay(["b"]), at: at(11))
        return reconciliation
    }

    @Test("a replay's outcome delivered twice answers its record once: another replay record without an outcome stays missing")
    func redeliveredReplayOutcome() {
        var reconciliation = twoReplaysRead()
        // The first one's outcome, published again after a worker's crash before its commit.
        reconciliation.record(replayOutcome(ok: 1, record: at(10)))
        reconciliation.record(replayOutcome(ok: 1, record: at(10)))
        #expect(!reconciliation.isComplete && reconciliation.missingReplays == ["r": 1])
        #expect(reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1], "b was not replayed yet")
        reconciliation.record(replayOutcome(ok: 1, record: at(11)))
        #expect(reconciliation.isComplete && reconciliation.codes(of: "r") == ["OK": 2])
    }

    @Test("a replay's outcome settles only the items of the record it names, not another replay record's")
    func namedRecordSettlesItsItems() {
        var reconciliation = twoReplaysRead()
        // Both records fit an outcome of one success: only the one it names was answered.
        reconciliation.record(replayOutcome(ok: 1, record: at(11)))
        #expect(reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1] && reconciliation.missingReplays == ["r": 1])
        // An outcome of a record never read (another part of the topic) settles nothing and
        // answers none of those read.
        reconciliation.record(replayOutcome(ok: 1, record: at(99)))
        #expect(reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1] && reconciliation.missingReplays == ["r": 1])
    }

    @Test("outcomes that name no record (older workers') answer any replay records, unless one of the id names its record: then the audit stays short")
    func unplacedOutcomesBesideNamedOnes() {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a")]))
        reconciliation.expectReplay(replay(["a"]), at: at(10))
        reconciliation.expectReplay(replay(["a"]), at: at(11))
        reconciliation.record(replayOutcome(ok: 1, record: nil))
        #expect(reconciliation.missingReplays == ["r": 1] && reconciliation.codes(of: "r") == ["OK": 1])
        reconciliation.record(replayOutcome(ok: 1, record: nil))
        #expect(reconciliation.isComplete, "counted as before the field")
        // A newer worker answers record 10 again (an upgrade, and a redelivery): which record the
        // older outcomes answered is not known any more, and 11 may have none.
        reconciliation.record(replayOutcome(ok: 1, record: at(10)))
        #expect(reconciliation.missingReplays == ["r": 1])
    }

    @Test("followed: a called outcome and a cancelled redelivery's, both before their record, settle as the called one says")
    func heldOutcomesKeepTheCalledOne() {
        var followed = FollowedReconciliation()
        followed.expect("r")
        followed.record(original([(0, "a")]))
        followed.record(replayOutcome(ok: 1, record: at(10)))
        let cancelled = Outcome(
            requestID: "r", op: .topicsSubscribe, target: ["topic": "t"], status: .cancelled, counts: [Outcome.cancelledItems: 1], failedItems: [],
            replayOf: "r", record: at(10), backendCalls: 0, receivedAt: .now, completedAt: .now)
        followed.record(cancelled)
        followed.expectReplay(replay(["a"]), at: at(10))
        #expect(followed.isComplete && followed.reconciliation.codes(of: "r") == ["OK": 1])
    }

    @Test("without request records read beside (the demo's collector), a replay's outcome is applied at once, never held")
    func notFollowedAppliesAtOnce() {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a")]))
        var again = original([(0, "a")])
        again.replayOf = "r"
        again.record = at(10)
        again.failedItems[0].code = .internal
        again.counts = ["INTERNAL": 1]
        reconciliation.record(again)
        #expect(reconciliation.codes(of: "r") == ["INTERNAL": 1] && reconciliation.unheldAnswers == 1)
    }

    @Test("followed: a replay's outcome that came before its record answers it once the record is read")
    func followedOutcomeBeforeRecord() {
        var followed = FollowedReconciliation()
        followed.expect("r")
        followed.record(original([(0, "a"), (1, "b")]))
        followed.expectReplay(replay(["a"]), at: at(10))
        followed.record(replayOutcome(ok: 1, record: at(11)))
        followed.record(replayOutcome(ok: 1, record: at(11)))
        #expect(!followed.isComplete, "record 10 has no outcome")
        #expect(followed.reconciliation.codes(of: "r") == ["UNAVAILABLE": 2], "record 11's items are not known yet")
        followed.expectReplay(replay(["b"]), at: at(11))
        #expect(!followed.isComplete && followed.reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1], "b settled once its record is read")
        followed.record(replayOutcome(ok: 1, record: at(10)))
        #expect(followed.isComplete && followed.reconciliation.codes(of: "r") == ["OK": 2])
    }
}
