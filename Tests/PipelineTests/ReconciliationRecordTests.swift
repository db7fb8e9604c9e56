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

    @Test("a replay's outcome delivered twice answers its record once: another replay record without an outcome stays missing")
    func redeliveredReplayOutcome() {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a"), (1, "b")]))
        // Two dead letters of the request replayed: one record each.
        reconciliation.expectReplay(replay(["a"]), at: at(10))
        reconciliation.expectReplay(replay(["b"]), at: at(11))
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
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a"), (1, "b")]))
        reconciliation.expectReplay(replay(["a"]), at: at(10))
        reconciliation.expectReplay(replay(["b"]), at: at(11))
        // Both records fit an outcome of one success: only the one it names was answered.
        reconciliation.record(replayOutcome(ok: 1, record: at(11)))
        #expect(reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1] && reconciliation.missingReplays == ["r": 1])
        // An outcome of a record never read (another part of the topic) settles nothing and
        // answers none of those read.
        reconciliation.record(replayOutcome(ok: 1, record: at(99)))
        #expect(reconciliation.codes(of: "r") == ["OK": 1, "UNAVAILABLE": 1] && reconciliation.missingReplays == ["r": 1])
    }

    @Test("an outcome that names no record (an older worker's) answers any one replay record, as before")
    func unplacedOutcomeAnswersOne() {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        reconciliation.record(original([(0, "a")]))
        reconciliation.expectReplay(replay(["a"]), at: at(10))
        reconciliation.expectReplay(replay(["a"]), at: at(11))
        reconciliation.record(replayOutcome(ok: 1, record: nil))
        #expect(reconciliation.missingReplays == ["r": 1] && reconciliation.codes(of: "r") == ["OK": 1])
        reconciliation.record(replayOutcome(ok: 1, record: at(10)))
        #expect(reconciliation.isComplete, "the unplaced outcome stands for record 11")
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
