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

    private func replay(_ id: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("t"), items: ["t1"], replayOf: id, priorAttempts: 1)
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
        #expect(!followed.isComplete)
    }

    /// The receipt audit: during `reconcile --wait`, every outcome of a request not expected
    /// (another pipeline's, on a shared outcome topic) was kept until the wait ended.
    @Test("early outcomes kept are bounded: past the most, the oldest is dropped and its request, if it comes, is missing")
    func earlyOutcomesBounded() {
        var followed = FollowedReconciliation()
        followed.keepsEarlyOutcomes = true
        let most = FollowedReconciliation.mostEarlyOutcomes
        let one = outcome("x")
        for index in 0...most {
            var next = one
            next.requestID = "x-\(index)"
            followed.record(next)
        }
        #expect(followed.waiting == most && followed.earlyDropped == 1)
        followed.expect("x-1")
        followed.expect("x-0")
        #expect(followed.reconciliation.missing == ["x-0"], "dropped: missing, never complete for want of it")
        #expect(followed.outcomes == 1 && followed.waiting == most - 1)
        followed.record(outcome("x-0"))
        #expect(followed.isComplete)
    }

    @Test("isComplete agrees with the reconciliation's at every step, replays included")
    func completeness() {
        var followed = FollowedReconciliation()
        followed.keepsEarlyOutcomes = true
        let steps: [(inout FollowedReconciliation) -> Void] = [
            { $0.expect("a") }, { $0.record(outcome("a")) }, { $0.expectReplay(replay("a")) }, { $0.record(outcome("a", replayOf: "a")) },
            { $0.expectReplay(replay("a")) }, { $0.record(outcome("b")) }, { $0.expect("b") }, { $0.record(outcome("a", replayOf: "a")) },
        ]
        #expect(followed.isComplete == followed.reconciliation.isComplete)
        for step in steps {
            step(&followed)
            #expect(followed.isComplete == followed.reconciliation.isComplete)
        }
        #expect(followed.isComplete)
    }

    @Test("an outcome that arrives before its request counts when the request arrives; a replay's too")
    func keepsEarly() {
        var followed = FollowedReconciliation()
        followed.keepsEarlyOutcomes = true
        followed.expect("a")
        followed.record(outcome("b"))
        followed.record(outcome("c", replayOf: "c"))
        #expect(followed.outcomes == 0 && followed.waiting == 2)
        #expect(!followed.reconciliation.isComplete && !followed.isComplete)
        followed.expect("b")
        followed.record(outcome("a"))
        followed.expectReplay(replay("c"))
        #expect(followed.outcomes == 3 && followed.waiting == 0)
        #expect(followed.reconciliation.isComplete, "\(followed.reconciliation.missing)")
        #expect(followed.isComplete)
        #expect(followed.reconciliation.unexpected.isEmpty)
    }
}
