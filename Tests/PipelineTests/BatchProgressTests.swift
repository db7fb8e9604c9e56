import Foundation
import InstanceAPI
import Pipeline
import Testing

@Suite("Batch progress: counts, state, rate and time left")
struct BatchProgressTests {
    static let created = BatchManifestTests.created

    static func outcome(
        _ id: String, batch: String? = "gdpr-7", items: Int, at seconds: TimeInterval, status: OutcomeStatus = .succeeded, record: Int64? = nil
    ) -> Outcome {
        Outcome(
            requestID: id, op: .installationsDelete, target: [:], status: status, counts: items > 0 ? ["OK": items] : [:], failedItems: [],
            record: record.map { RecordPosition(topic: "deletions", partition: 0, offset: $0) }, batch: batch, backendCalls: items, receivedAt: created,
            completedAt: created.addingTimeInterval(seconds))
    }

    static func manifest(requests: Int = 4, items: Int = 400, state: BatchManifest.State = .submitted) -> BatchManifest {
        var manifest = BatchManifestTests.manifest(state)
        manifest.requests = requests
        manifest.items = items
        return manifest
    }

    @Test("outcomes of the batch count; others do not; a repeated outcome counts once, the last read")
    func counting() {
        var progress = BatchProgress(manifest: Self.manifest())
        let counted = [
            progress.read(Self.outcome("r-1", items: 100, at: 1)), progress.read(Self.outcome("r-2", batch: "other", items: 100, at: 1)),
            progress.read(Self.outcome("r-3", batch: nil, items: 100, at: 1)), progress.read(Self.outcome("r-1", items: 90, at: 2)),
        ]
        #expect(counted == [true, false, false, true])
        #expect(progress.requestsDone == 1)
        #expect(progress.itemsDone == 90)
    }

    @Test("state: a cancel in force beats submitting, submitting beats paused, else running; once all answered, done unless one was cancelled")
    func state() {
        let cancel = ControlCancel(
            pipeline: "deletions", batch: "gdpr-7", requestID: nil, producedBefore: nil, version: 1, updatedAt: Self.created, updatedBy: "bob",
            reason: "wrong list", tag: "t1")
        var bounded = cancel
        bounded.producedBefore = Self.created.addingTimeInterval(-1)
        var other = cancel
        other.batch = "gdpr-8"
        var progress = BatchProgress(manifest: Self.manifest(requests: 2, items: 200, state: .submitting))
        #expect(progress.state(cancels: [], paused: false) == .submitting)
        #expect(progress.state(cancels: [other], paused: true) == .submitting)
        #expect(progress.state(cancels: [cancel], paused: false) == .cancelled, "cancelled while still submitting")
        progress.manifest.state = .submitted
        #expect(progress.state(cancels: [bounded], paused: false) == .running, "bounded before the batch was made: it cancels none of it")
        var later = cancel
        later.producedBefore = Self.created.addingTimeInterval(1)
        #expect(progress.state(cancels: [later], paused: false) == .running, "bounded after the batch was made: records produced later still run")
        var acrossPipelines = progress
        acrossPipelines.manifest.pipeline = nil
        #expect(acrossPipelines.state(cancels: [cancel], paused: false) == .cancelled, "no pipeline named, one topic: the cancel reaches it all")
        acrossPipelines.manifest.requestTopics = ["deletions", "topics"]
        #expect(acrossPipelines.state(cancels: [cancel], paused: false) == .running, "one pipeline's cancel of a batch across several")
        #expect(progress.state(cancels: [], paused: false) == .running)
        #expect(progress.state(cancels: [other], paused: true) == .paused)
        #expect(progress.state(cancels: [cancel], paused: false) == .cancelled)
        progress.read(Self.outcome("r-1", items: 100, at: 1))
        progress.read(Self.outcome("r-2", items: 100, at: 2))
        #expect(progress.state(cancels: [], paused: true) == .done)
        #expect(progress.state(cancels: [cancel], paused: false) == .done, "every request answered by a call: a later cancel changed nothing")
        var cancelled = Self.outcome("r-3", items: 0, at: 3, status: .cancelled)
        cancelled.counts = [Outcome.cancelledItems: 100]
        var partly = BatchProgress(manifest: Self.manifest(requests: 2, items: 200))
        partly.read(Self.outcome("r-1", items: 100, at: 1))
        partly.read(cancelled)
        #expect(partly.state(cancels: [], paused: false) == .cancelled, "answered, one of them cancelled")
        // Every request answered, but the manifest never said submitted: not done.
        progress.manifest.state = .submitting
        #expect(progress.state(cancels: [], paused: false) == .submitting)
    }

    /// The receipt audit: a cancel naming the batch and one request id cancels that request only;
    /// every request answered with some items never given a result (records rejected, or a replay's
    /// second record of one id turned away as a duplicate) is done, and says how many.
    @Test("a cancel of one request of the batch is not the batch's; a batch done with items left without a result says how many")
    func oneRequestCancelAndItemsWithoutResult() {
        let one = ControlCancel(
            pipeline: "deletions", batch: "gdpr-7", requestID: "r-2", producedBefore: nil, version: 1, updatedAt: Self.created, updatedBy: "bob",
            reason: "wrong id", tag: "t1")
        var submitted = Self.manifest(requests: 2, items: 200)
        submitted.idPrefix = "id-0123456789abcdef"
        let ids = [1, 2].map { SubmitPlan.id(prefix: "id-0123456789abcdef", number: $0) }
        var progress = BatchProgress(manifest: submitted)
        #expect(progress.state(cancels: [one], paused: false) == .running, "one request's cancel")
        progress.read(Self.outcome(ids[0], items: 100, at: 1))
        #expect(progress.itemsWithoutResult == 0, "nothing is without a result before every request answered")
        progress.read(Self.outcome(ids[1], items: 0, at: 2, status: .rejected))
        #expect(progress.state(cancels: [one], paused: false) == .done)
        #expect(progress.itemsWithoutResult == 100, "the second was rejected: its 100 items have no result")
    }

    @Test("a replay's records of one id count each, by the record their outcomes name: done only when every record is answered")
    func replayRecordsOfOneID() {
        // Two dead letters of r-1 not folded together, replayed as two records, and one of r-2.
        var replay = BatchProgress(manifest: Self.manifest(requests: 3, items: 6))
        replay.read(Self.outcome("r-1", items: 2, at: 1, record: 10))
        replay.read(Self.outcome("r-1", items: 2, at: 2, record: 10))
        replay.read(Self.outcome("r-2", items: 2, at: 2, record: 12))
        #expect(!replay.isComplete && replay.requestsDone == 2 && replay.itemsDone == 4, "record 11 has no outcome: not done")
        // The second record of r-1, turned away as a duplicate of the first in flight.
        var turnedAway = Self.outcome("r-1", items: 0, at: 3, status: .rejected, record: 11)
        turnedAway.duplicateOf = "deletions/0/10"
        replay.read(turnedAway)
        #expect(replay.isComplete && replay.itemsWithoutResult == 2, "record 11 was turned away: its 2 items have no result")
    }

    @Test("a submit's batch counts by id: the submit run again with the batch's name (records of the same ids again) is never done early")
    func submitRunAgainCountsByID() {
        var manifest = Self.manifest(requests: 4, items: 400)
        manifest.idPrefix = "id-0123456789abcdef"
        let ids = (1...4).map { SubmitPlan.id(prefix: "id-0123456789abcdef", number: $0) }
        var progress = BatchProgress(manifest: manifest)
        for (offset, id) in [ids[0], ids[1], ids[0], ids[1]].enumerated() { progress.read(Self.outcome(id, items: 100, at: 1, record: Int64(offset))) }
        #expect(!progress.isComplete && progress.requestsDone == 2, "ids 3 and 4 have no outcome")
    }

    @Test("rejected records without an id of their own (their outcomes keyed by position) never complete the batch")
    func positionIDsDoNotCount() {
        var progress = BatchProgress(manifest: Self.manifest(requests: 2, items: 200))
        var counted: [Bool] = []
        for offset in [5, 6] { counted.append(progress.read(Self.outcome("deletions/0/\(offset)", items: 0, at: 1, status: .rejected))) }
        #expect(counted == [false, false])
        #expect(!progress.isComplete && progress.requestsDone == 0)
        #expect(progress.state(cancels: [], paused: false) == .running)
        // An id of that form on an outcome that called is the request's own: it counts.
        let own = progress.read(Self.outcome("deletions/0/7", items: 100, at: 2))
        #expect(own)
        #expect(progress.requestsDone == 1)
    }

    @Test(
        "a submitted batch (its manifest names the ids' prefix) counts only ids <prefix>-<n>, n from 1 to its requests: records with other ids never complete it"
    )
    func otherIDsDoNotCount() {
        var manifest = Self.manifest(requests: 2, items: 200)
        manifest.idPrefix = "id-0123456789abcdef"
        var progress = BatchProgress(manifest: manifest)
        var counted: [Bool] = []
        for id in ["f1", "f2", "id-0123456789abcdef-000003", "id-0123456789abcdef-1", "id-0123456789abcdef-0000001", "x-id-0123456789abcdef-000001"] {
            counted.append(progress.read(Self.outcome(id, items: 0, at: 1, status: .rejected)))
        }
        #expect(counted == Array(repeating: false, count: 6))
        #expect(!progress.isComplete && progress.state(cancels: [], paused: false) == .running)
        progress.read(Self.outcome("id-0123456789abcdef-000001", items: 100, at: 2))
        progress.read(Self.outcome("id-0123456789abcdef-000002", items: 0, at: 3, status: .rejected))
        #expect(progress.isComplete && progress.requestsDone == 2 && progress.state(cancels: [], paused: false) == .done)
    }

    @Test("a record rejected because its id's request was in flight (a submit run twice) says nothing of that request's end: it never completes the batch")
    func duplicateInFlightDoesNotCount() {
        var manifest = Self.manifest(requests: 1, items: 2)
        manifest.idPrefix = "id-0123456789abcdef"
        var progress = BatchProgress(manifest: manifest)
        var duplicate = Self.outcome("id-0123456789abcdef-000001", items: 0, at: 1, status: .rejected)
        duplicate.duplicateOf = "deletions/0/7"
        let counted = progress.read(duplicate)
        #expect(!counted)
        #expect(!progress.isComplete && progress.state(cancels: [], paused: false) == .running)
        progress.read(Self.outcome("id-0123456789abcdef-000001", items: 2, at: 2))
        #expect(progress.isComplete)
    }

    @Test("a cancelled or rejected redelivery never replaces an outcome that called: the items stay done as they were")
    func redeliveryKeepsWhatHappened() {
        var progress = BatchProgress(manifest: Self.manifest(requests: 1, items: 2))
        progress.read(Self.outcome("r-1", items: 2, at: 1))
        var again = Self.outcome("r-1", items: 0, at: 5, status: .cancelled)
        again.counts = [Outcome.cancelledItems: 2]
        progress.read(again)
        #expect(progress.state(cancels: [], paused: false) == .done)
        #expect(progress.itemsDone == 2)
    }

    @Test("the rate is the items completed in the last minute, per second; the time left is the rest at that rate")
    func rateAndETA() {
        var progress = BatchProgress(manifest: Self.manifest(requests: 10, items: 1_000))
        let at = { (seconds: TimeInterval) in Self.created.addingTimeInterval(seconds) }
        #expect(progress.rate(at: at(10)) == 0)
        #expect(progress.secondsLeft(at: at(10)) == nil)
        // 100 items at 5 s and 100 at 30 s; the batch is 40 s old: 200 items / 40 s.
        progress.read(Self.outcome("r-1", items: 100, at: 5))
        progress.read(Self.outcome("r-2", items: 100, at: 30))
        #expect(progress.rate(at: at(40)) == 5)
        #expect(progress.secondsLeft(at: at(40)) == 160)
        // At 89 s, the window is the last 60 s (from 29 s): only the 100 items at 30 s.
        #expect(abs(progress.rate(at: at(89)) - 100.0 / 60) < 1e-9)
        #expect(abs((progress.secondsLeft(at: at(89)) ?? 0) - 800 / (100.0 / 60)) < 1e-6)
        // Nothing in the last minute: no rate, no time left.
        #expect(progress.secondsLeft(at: at(200)) == nil)
    }

    @Test("a done batch has no time left")
    func doneLeft() {
        var progress = BatchProgress(manifest: Self.manifest(requests: 1, items: 100))
        progress.read(Self.outcome("r-1", items: 100, at: 5))
        #expect(progress.secondsLeft(at: Self.created.addingTimeInterval(500)) == 0)
    }
}
