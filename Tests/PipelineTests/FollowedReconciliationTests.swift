import Foundation
import Pipeline
import Testing

@Suite("Reconciliation of topics followed side by side")
struct FollowedReconciliationTests {
    private func outcome(_ id: String, replayOf: String? = nil) -> Outcome {
        Outcome(
            requestID: id, op: .topicsSubscribe, target: [:], status: .succeeded, counts: ["OK": 1], failedItems: [], replayOf: replayOf,
            backendCalls: 1, receivedAt: .now, completedAt: .now)
    }

    @Test("outcomes of requests not expected are dropped unless early outcomes are kept")
    func dropsUnexpected() {
        var followed = FollowedReconciliation()
        followed.expect("a")
        followed.record(outcome("z"))
        followed.record(outcome("a"))
        followed.expect("z")
        #expect(followed.outcomes == 1 && followed.waiting == 0)
        #expect(followed.reconciliation.missing == ["z"])
    }

    @Test("an outcome that arrives before its request counts when the request arrives; a replay's too")
    func keepsEarly() {
        var followed = FollowedReconciliation()
        followed.keepsEarlyOutcomes = true
        followed.expect("a")
        followed.record(outcome("b"))
        followed.record(outcome("c-replay", replayOf: "c"))
        #expect(followed.outcomes == 0 && followed.waiting == 2)
        #expect(!followed.reconciliation.isComplete)
        followed.expect("b")
        followed.record(outcome("a"))
        followed.expectReplay(of: "c")
        #expect(followed.outcomes == 3 && followed.waiting == 0)
        #expect(followed.reconciliation.isComplete, "\(followed.reconciliation.missing)")
        #expect(followed.reconciliation.unexpected.isEmpty)
    }
}
