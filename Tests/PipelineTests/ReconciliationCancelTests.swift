import Foundation
import InstanceAPI
import Pipeline
import Testing

/// Reconciliation of cancelled requests: answered, counted as cancelled with their items, and
/// never undoing what a real outcome of the same request said.
@Suite("Reconciliation: cancelled requests")
struct ReconciliationCancelTests {
    private func outcome(_ id: String, _ status: OutcomeStatus, _ counts: [String: Int]) -> Outcome {
        Outcome(
            requestID: id, op: .installationsDelete, target: [:], status: status, counts: counts, failedItems: [], backendCalls: status == .cancelled ? 0 : 1,
            receivedAt: .now, completedAt: .now)
    }

    @Test("a cancelled request is answered, its status cancelled and its items counted as CANCELLED")
    func cancelledIsAnswered() {
        var reconciliation = Reconciliation()
        for id in ["a", "b"] { reconciliation.expect(id) }
        reconciliation.record(outcome("a", .cancelled, [Outcome.cancelledItems: 3]))
        reconciliation.record(outcome("b", .succeeded, ["OK": 2]))
        #expect(reconciliation.isComplete)
        #expect(reconciliation.status(of: "a") == .cancelled)
        #expect(reconciliation.codes(of: "a") == [Outcome.cancelledItems: 3])
        #expect(reconciliation.statusesByOp["installations.delete"] == [.cancelled: 1, .succeeded: 1])
    }

    @Test("a cancelled outcome after a real one of the same request (a redelivery) does not undo it; the other way round it does")
    func cancelNeverUndoesWork() {
        var reconciliation = Reconciliation()
        reconciliation.expect("a")
        reconciliation.record(outcome("a", .succeeded, ["OK": 2]))
        reconciliation.record(outcome("a", .cancelled, [Outcome.cancelledItems: 2]))
        #expect(reconciliation.status(of: "a") == .succeeded && reconciliation.codes(of: "a") == ["OK": 2])
        reconciliation.expect("b")
        reconciliation.record(outcome("b", .cancelled, [Outcome.cancelledItems: 2]))
        reconciliation.record(outcome("b", .succeeded, ["OK": 2]))
        #expect(reconciliation.status(of: "b") == .succeeded, "a later real outcome (the cancel lifted, the request sent again) is what happened")
    }

    @Test("a cancelled request's replay of another topic (written with its id and replayOf) does not answer it")
    func cancelledThenForeignReplay() {
        var reconciliation = Reconciliation()
        reconciliation.expect("a")
        var cancelled = outcome("a", .cancelled, [Outcome.cancelledItems: 1])
        cancelled.target = ["subject": "s"]
        reconciliation.record(cancelled)
        reconciliation.expectReplay(PipelineRequest(id: "a", op: .installationsDelete, target: .subject("other"), items: ["f"], replayOf: "a"))
        var forged = outcome("a", .succeeded, ["OK": 1])
        forged.target = ["subject": "other"]
        forged.replayOf = "a"
        reconciliation.record(forged)
        #expect(reconciliation.status(of: "a") == .cancelled)
    }
}
