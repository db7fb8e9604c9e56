import Foundation
import InstanceAPI
import Pipeline
import Testing

@Suite("Reconciliation")
struct ReconciliationTests {
    private func outcome(
        _ id: String, _ status: OutcomeStatus, _ counts: [String: Int] = [:], failed: [(Int, String, ResultCode)] = [], replayOf: String? = nil
    ) -> Outcome {
        Outcome(
            requestID: id, op: .topicsSubscribe, target: ["topic": "t"], status: status, counts: counts,
            failedItems: failed.map { FailedItem(index: $0.0, item: $0.1, code: $0.2, attempts: 3, message: nil) },
            replayOf: replayOf, backendCalls: 1, receivedAt: .now, completedAt: .now)
    }

    private func replay(_ id: String, _ items: [String]) -> PipelineRequest {
        PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("t"), items: items, replayOf: id, priorAttempts: 3)
    }

    @Test("finds a missing outcome, a duplicate and an unexpected one; counts use the latest outcome")
    func audit() {
        var reconciliation = Reconciliation()
        for id in ["a", "b", "c"] { reconciliation.expect(id) }
        reconciliation.record(outcome("a", .partial, ["OK": 1, "INTERNAL": 1], failed: [(1, "t2", .internal)]))
        reconciliation.record(outcome("a", .succeeded, ["OK": 2]))
        reconciliation.record(outcome("b", .succeeded, ["OK": 2]))
        reconciliation.record(outcome("z", .rejected))
        #expect(reconciliation.missing == ["c"] && !reconciliation.isComplete)
        #expect(reconciliation.duplicates == ["a": 2] && reconciliation.unexpected == ["z"] && reconciliation.answered == 2)
        #expect(reconciliation.statusesByOp["topics.subscribe"] == [.succeeded: 2, .rejected: 1])
        #expect(reconciliation.codesByOp["topics.subscribe"] == ["OK": 4])
        reconciliation.record(outcome("c", .failed))
        #expect(reconciliation.isComplete)
    }

    @Test("a replay settles the dead-lettered items of its original; replaying it again changes nothing")
    func replays() {
        var reconciliation = Reconciliation()
        reconciliation.expect("r")
        // 5 items: 2 OK, one NOT_FOUND (final), two RESOURCE_EXHAUSTED (dead-lettered).
        reconciliation.record(
            outcome(
                "r", .partial, ["OK": 2, "NOT_FOUND": 1, "RESOURCE_EXHAUSTED": 2],
                failed: [(1, "t1", .notFound), (3, "t3", .resourceExhausted), (4, "t4", .resourceExhausted)]))
        #expect(reconciliation.codes(of: "r") == ["OK": 2, "NOT_FOUND": 1, "RESOURCE_EXHAUSTED": 2])
        // The dead letter of the two, replayed three times.
        for _ in 1...3 { reconciliation.expectReplay(replay("r", ["t3", "t4"])) }
        // The replay of the two: one succeeds, one fails again.
        reconciliation.record(outcome("r", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "t4", .unavailable)], replayOf: "r"))
        #expect(reconciliation.codes(of: "r") == ["OK": 3, "NOT_FOUND": 1, "UNAVAILABLE": 1])
        // The same dead letter replayed again, now to success: only t4 was still open.
        reconciliation.record(outcome("r", .succeeded, ["OK": 2], replayOf: "r"))
        let settled = ["OK": 4, "NOT_FOUND": 1]
        #expect(reconciliation.codes(of: "r") == settled && reconciliation.status(of: "r") == .partial)
        reconciliation.record(outcome("r", .succeeded, ["OK": 2], replayOf: "r"))
        #expect(reconciliation.codes(of: "r") == settled)
        #expect(reconciliation.duplicates.isEmpty && reconciliation.replayCounts == ["r": 3] && reconciliation.isComplete)
    }

    @Test("a record is a replay only of the request whose id it has: another id naming it in replayOf settles none of its items")
    func replayOfAnotherID() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        reconciliation.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "bad", .unavailable)]))
        reconciliation.record(outcome("evil", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(reconciliation.codes(of: "sub-1")?["UNAVAILABLE"] == 1 && reconciliation.status(of: "sub-1") == .partial)
        #expect(reconciliation.codes(of: "sub-1") == ["OK": 1, "UNAVAILABLE": 1])
        #expect(reconciliation.unexpected == ["evil"], "its own request, not a replay")
    }

    @Test("a replay's success settles only the items it carried: without its record, none")
    func replayWithoutItsRecord() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        reconciliation.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "bad", .unavailable)]))
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(reconciliation.codes(of: "sub-1")?["UNAVAILABLE"] == 1 && reconciliation.status(of: "sub-1") == .partial)
    }

    @Test(
        "a duplicate's rejection (duplicateOf) read before the outcome of the request in flight answers nothing: the request is not counted rejected or complete"
    )
    func duplicateRejectionAnswersNothing() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        var duplicate = outcome("sub-1", .rejected, [:])
        duplicate.duplicateOf = "requests/0/7"
        reconciliation.record(duplicate)
        #expect(!reconciliation.isAnswered("sub-1") && !reconciliation.isComplete && reconciliation.status(of: "sub-1") == nil)
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 2]))
        #expect(reconciliation.status(of: "sub-1") == .succeeded && reconciliation.isComplete)
        #expect(reconciliation.duplicates["sub-1"] == 2, "the id came twice: a duplicate, as before")
    }

    @Test("a replay record turned away as a duplicate in flight answers no replay: a redelivered rejection must not say complete while a replay runs")
    func turnedAwayReplayAnswersNothing() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        reconciliation.record(outcome("sub-1", .failed, ["UNAVAILABLE": 2], failed: [(0, "a", .unavailable), (1, "b", .unavailable)]))
        for _ in 0..<3 { reconciliation.expectReplay(replay("sub-1", ["a", "b"])) }
        var turnedAway = outcome("sub-1", .rejected, [:], replayOf: "sub-1")
        turnedAway.duplicateOf = "requests/0/9"
        // One turned-away record, redelivered and turned away again; a second replay done; the
        // third record not answered at all.
        reconciliation.record(turnedAway)
        reconciliation.record(turnedAway)
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 2], replayOf: "sub-1"))
        #expect(!reconciliation.isComplete && reconciliation.missingReplays == ["sub-1": 2])
        #expect(reconciliation.status(of: "sub-1") == .succeeded, "the rejections settle nothing")
    }

    @Test("a replay of a token Swift calls equal to the failed one (a Kelvin sign for K) is another token: it settles nothing")
    func replayOfAnEquivalentItemSettlesNothing() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        reconciliation.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "tokK", .unavailable)]))
        // "tok\u{212A}" (a Kelvin sign) is "tokK" to Swift's String, another token to the backend.
        reconciliation.expectReplay(replay("sub-1", ["tok\u{212A}"]))
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(reconciliation.codes(of: "sub-1")?["UNAVAILABLE"] == 1 && reconciliation.status(of: "sub-1") == .partial)
    }

    @Test("a replay's success settles the original's failures its record carried, by item: not one it did not carry")
    func replaySettlesWhatItCarried() {
        var reconciliation = Reconciliation()
        reconciliation.expect("sub-1")
        reconciliation.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "bad", .unavailable)]))
        reconciliation.expectReplay(replay("sub-1", ["good"]))
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(reconciliation.codes(of: "sub-1") == ["OK": 1, "UNAVAILABLE": 1] && reconciliation.status(of: "sub-1") == .partial)
        // Two replay records fit the next outcome (one item each, none failed): only an item both
        // hold is surely answered.
        reconciliation.expectReplay(replay("sub-1", ["bad"]))
        reconciliation.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(reconciliation.codes(of: "sub-1")?["UNAVAILABLE"] == 1, "'good' or 'bad' was answered: not known which")
        // A record that does not fit (two items, the outcome counts one) is not the one answered.
        var other = Reconciliation()
        other.expect("sub-1")
        other.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "bad", .unavailable)]))
        other.expectReplay(replay("sub-1", ["bad", "good"]))
        other.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(other.codes(of: "sub-1")?["UNAVAILABLE"] == 1)
        // The replay record that carried it: settled.
        var settled = Reconciliation()
        settled.expect("sub-1")
        settled.record(outcome("sub-1", .partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "bad", .unavailable)]))
        settled.expectReplay(replay("sub-1", ["bad"]))
        settled.record(outcome("sub-1", .succeeded, ["OK": 1], replayOf: "sub-1"))
        #expect(settled.codes(of: "sub-1") == ["OK": 2] && settled.status(of: "sub-1") == .succeeded && settled.isComplete)
    }

    @Test("a rejected duplicate record does not undo what its first record did")
    func rejectedDuplicate() {
        var reconciliation = Reconciliation()
        reconciliation.record(outcome("d", .succeeded, ["OK": 3]))
        reconciliation.record(outcome("d", .rejected))
        #expect(reconciliation.status(of: "d") == .succeeded && reconciliation.codes(of: "d") == ["OK": 3])
        #expect(reconciliation.duplicates == ["d": 2])
    }

    @Test("a replay record of another topic or op (written with the id and replayOf) settles none of the original's failures")
    func replayOfAnotherTarget() {
        for (target, op) in [(RequestTarget.topic("u"), RequestOp.topicsSubscribe), (.topic("t"), .topicsUnsubscribe)] {
            var reconciliation = Reconciliation()
            reconciliation.expect("sub-1")
            reconciliation.record(outcome("sub-1", .failed, ["UNAVAILABLE": 2], failed: [(0, "a", .unavailable), (1, "b", .unavailable)]))
            reconciliation.expectReplay(
                PipelineRequest(id: "sub-1", op: op, target: target, items: ["a", "b"], replayOf: "sub-1", priorAttempts: 3))
            var other = outcome("sub-1", .succeeded, ["OK": 2], replayOf: "sub-1")
            other.op = op
            other.target = target.outcomeFields
            reconciliation.record(other)
            #expect(reconciliation.status(of: "sub-1") == .failed, "\(target) \(op)")
            // Nor recodes them: its failure of `a` is not the original's.
            var failing = outcome("sub-1", .partial, ["OK": 1, "NOT_FOUND": 1], failed: [(0, "a", .notFound)], replayOf: "sub-1")
            failing.op = op
            failing.target = target.outcomeFields
            reconciliation.record(failing)
            #expect(reconciliation.codes(of: "sub-1") == ["UNAVAILABLE": 2], "\(target) \(op)")
            // The original's own replay still settles them.
            reconciliation.expectReplay(replay("sub-1", ["a", "b"]))
            reconciliation.record(outcome("sub-1", .succeeded, ["OK": 2], replayOf: "sub-1"))
            #expect(reconciliation.status(of: "sub-1") == .succeeded, "\(target) \(op)")
        }
    }
}

extension ReconciliationTests {
    @Test("a request whose record was read is not answered by its replay's outcome alone; with its own outcome it is")
    func replayOutcomeAlone() {
        var reconciliation = Reconciliation()
        reconciliation.expect("a")
        reconciliation.expectReplay(replay("a", ["t2"]))
        reconciliation.record(outcome("a", .succeeded, ["OK": 1], replayOf: "a"))
        #expect(reconciliation.missing == ["a"] && reconciliation.answeredByReplaysOnly == ["a"] && !reconciliation.isComplete)
        // A second replay record of the id rejected as a duplicate in flight: no outcome of its own either.
        var duplicate = outcome("a", .rejected, replayOf: "a")
        duplicate.duplicateOf = "dlq/0/1"
        reconciliation.record(duplicate)
        #expect(reconciliation.missing == ["a"], "a duplicate's rejection lists no item of the original")
        reconciliation.record(outcome("a", .partial, ["OK": 1, "NOT_FOUND": 1], failed: [(1, "t1", .notFound)]))
        #expect(reconciliation.missing.isEmpty && reconciliation.isComplete)
        // Only the replay's record read (the original's past retention): what it carried is all there is to answer.
        var replaysOnly = Reconciliation()
        replaysOnly.expectReplay(replay("b", ["t3"]))
        replaysOnly.record(outcome("b", .succeeded, ["OK": 1], replayOf: "b"))
        #expect(replaysOnly.isComplete && replaysOnly.status(of: "b") == .succeeded)
    }

    @Test("a replay record rejected unread, its original past retention, is answered by its own rejection")
    func rejectedReplayRecord() {
        var reconciliation = Reconciliation()
        reconciliation.expect("b", original: false)
        reconciliation.record(outcome("b", .rejected, replayOf: "b"))
        #expect(reconciliation.isComplete, "\(reconciliation.missing)")
    }
}
