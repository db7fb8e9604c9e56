import Foundation
import InstanceAPI
import Pipeline
import Testing

/// Reconciliation of outcomes published without their item lists (the outcome topic refused the
/// whole outcome as too large): their counts are the truth, and the failures they count but do
/// not name are never read as successes.
@Suite("Reconciliation: outcomes without item lists")
struct ReconciliationCompactTests {
    private func outcome(_ id: String, _ status: OutcomeStatus, _ counts: [String: Int], failed: [FailedItem] = [], replayOf: String? = nil) -> Outcome {
        Outcome(
            requestID: id, op: .topicsSubscribe, target: ["topic": "news"], status: status, counts: counts, failedItems: failed, replayOf: replayOf,
            backendCalls: 1, receivedAt: .now, completedAt: .now)
    }

    @Test("a partial outcome in its compact form stays partial, its failures counted by code though no item is named")
    func compactPartial() {
        var reconciliation = Reconciliation()
        reconciliation.expect("a")
        let whole = outcome(
            "a", .partial, ["OK": 90, "PERMISSION_DENIED": 10],
            failed: (0..<10).map { FailedItem(index: 90 + $0, item: "t\($0)", code: .permissionDenied, attempts: 1, message: nil) })
        reconciliation.record(whole.withoutItemLists(because: "MSG_SIZE_TOO_LARGE"))
        #expect(reconciliation.status(of: "a") == .partial)
        #expect(reconciliation.codes(of: "a") == ["OK": 90, "PERMISSION_DENIED": 10])
    }

    @Test("a failed compact outcome stays failed, and a replay's success settles none of the failures it does not name")
    func compactFailedThenReplay() {
        var reconciliation = Reconciliation()
        reconciliation.expect("b")
        reconciliation.record(outcome("b", .failed, ["UNAVAILABLE": 3]).withoutItemLists(because: "too large"))
        #expect(reconciliation.status(of: "b") == .failed && reconciliation.codes(of: "b") == ["UNAVAILABLE": 3])
        let replay = PipelineRequest(id: "b", op: .topicsSubscribe, target: .topic("news"), items: ["x"], replayOf: "b", priorAttempts: 6)
        reconciliation.expectReplay(replay)
        reconciliation.record(outcome("b", .succeeded, ["OK": 1], replayOf: "b"))
        #expect(reconciliation.status(of: "b") == .failed, "one item of three replayed, and which one is not known")
    }

    @Test("an outcome whose item list names some of its failures counts the others too")
    func partlyNamed() {
        var reconciliation = Reconciliation()
        reconciliation.expect("c")
        reconciliation.record(
            outcome("c", .partial, ["OK": 1, "NOT_FOUND": 2], failed: [FailedItem(index: 1, item: "t1", code: .notFound, attempts: 1, message: nil)]))
        #expect(reconciliation.codes(of: "c") == ["OK": 1, "NOT_FOUND": 2])
        #expect(reconciliation.status(of: "c") == .partial)
    }
}
