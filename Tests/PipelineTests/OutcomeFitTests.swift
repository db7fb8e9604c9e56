import Foundation
import InstanceAPI
import Pipeline
import Testing

@Suite("Which request records an outcome can be of")
struct OutcomeFitTests {
    private let request = PipelineRequest(id: "x", op: .topicsSubscribe, target: .topic("t"), items: ["a", "b"])

    private func outcome(_ status: OutcomeStatus, _ counts: [String: Int], failed: [(Int, String)] = [], op: RequestOp? = .topicsSubscribe) -> Outcome {
        Outcome(
            requestID: "x", op: op, target: ["topic": "t"], status: status, counts: counts,
            failedItems: failed.map { FailedItem(index: $0.0, item: $0.1, code: .unavailable, attempts: 8, message: nil) }, backendCalls: 1,
            receivedAt: .now, completedAt: .now)
    }

    @Test("fits: the item count, each failed item at its index, the id and the op")
    func fits() {
        let partial = outcome(.partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(1, "b")])
        #expect(partial.fits(request))
        var shorter = request
        shorter.items = ["b"]
        #expect(!partial.fits(shorter), "one item, the outcome counts two")
        var swapped = request
        swapped.items = ["b", "a"]
        #expect(!partial.fits(swapped), "index 1 is not b")
        #expect(!outcome(.partial, ["OK": 1, "UNAVAILABLE": 1], failed: [(2, "b")]).fits(request), "an index past the items")
        var other = request
        other.id = "y"
        #expect(!partial.fits(other))
        #expect(!outcome(.succeeded, ["OK": 2], op: .topicsUnsubscribe).fits(request))
        #expect(outcome(.succeeded, ["OK": 2]).fits(swapped), "nothing listed: any two items fit")
    }

    @Test("a rejected outcome says nothing of the items: it fits a record of its id and op; a cancelled one counts them")
    func rejectedAndCancelled() {
        #expect(outcome(.rejected, [:]).fits(request) && outcome(.rejected, [:], op: nil).fits(request))
        #expect(!outcome(.rejected, [:], op: .groupsAdd).fits(request))
        #expect(outcome(.cancelled, [Outcome.cancelledItems: 2]).fits(request))
        #expect(!outcome(.cancelled, [Outcome.cancelledItems: 3]).fits(request))
    }

    @Test("a deletion's receipt names each item in order")
    func receipt() {
        let deletion = PipelineRequest(id: "x", op: .installationsDelete, target: .subject("s"), items: ["f1", "f2"])
        var done = outcome(.succeeded, ["OK": 2], op: .installationsDelete)
        done.target = ["subject": "s"]
        done.receipt = [ItemReceipt(item: "f1", code: .ok, at: .now), ItemReceipt(item: "f2", code: .ok, at: .now)]
        #expect(done.fits(deletion))
        done.receipt?.reverse()
        #expect(!done.fits(deletion))
    }

    @Test(
        "an outcome of another target is not the record's, whatever its items: a topic's subscribe is not another topic's; a compact outcome's cut value fits"
    )
    func target() {
        var elsewhere = outcome(.succeeded, ["OK": 2])
        elsewhere.target = ["topic": "u"]
        #expect(!elsewhere.fits(request))
        elsewhere.target = [:]
        #expect(!elsewhere.fits(request), "a called outcome always names its target")
        elsewhere.target = ["topic": "t", "subject": "s"]
        #expect(!elsewhere.fits(request))
        let long = String(repeating: "é", count: 300)
        var record = request
        record.target = .topic(long)
        let compact = outcome(.succeeded, ["OK": 2]).withoutItemLists(because: "too large")
        var cut = compact
        cut.target = ["topic": long.utf8Prefix(maxBytes: Outcome.maxCompactTargetBytes)]
        #expect(cut.fits(record))
        cut.target = ["topic": String(long.prefix(10))]
        #expect(!cut.fits(record))
        #expect(outcome(.rejected, [:]).fits(record), "a rejection names no target but its subject")
    }
}
