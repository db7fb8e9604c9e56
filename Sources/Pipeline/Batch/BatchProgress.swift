import Foundation

/// How far a batch is: its manifest and the outcomes of its requests, counted as they are read,
/// with its state, rate and time left. A pure value: the times are given, so it is tested alone.
///
/// Rules:
/// - Only outcomes that can be of the batch's own requests count (`BatchManifest.mayOwn`): a
///   rejection keyed by a record position (a record without an id, which the batch's producer
///   never writes) does not, whatever `batch` it names, nor, in a batch whose manifest names the
///   ids' prefix, an id submit did not give.
/// - A request record is done when it has an outcome (see `read(_:)`: a submit's by its id, a
///   replay's by the record it names, so its records of one id count each). When it has
///   several (a redelivery), the last read counts (outcomes are
///   read in offset order per partition, and a request's outcomes share a partition, being keyed
///   by its id), except that a `rejected` or `cancelled` one (which called nothing in its
///   delivery) never replaces one that called, as in `Reconciliation`.
/// - Items done are the items with a final code: the sum of the counts of each request's outcome.
/// - The state: once every request of the manifest has an outcome, `cancelled` when any of them
///   is, else `done` (`itemsWithoutResult` says how many items no outcome gave a result). Before
///   that, the first that holds of: `cancelled` (a cancel in force names the batch, or is one of
///   its pipeline naming no batch, with no request and no bound, and the batch is on one request
///   topic), `submitting` (the manifest says so), `paused` (its pipeline is paused), else
///   `running`.
/// - The rate is the items of the outcomes completed in the last `rateWindow` before now, per
///   second of that window (shorter when the batch is younger than it); the time left is the items
///   not done at that rate, nil when nothing completed in the window.
public struct BatchProgress: Sendable, Hashable {
    /// How far back the rate looks.
    public static let rateWindow: TimeInterval = 60

    /// One request's counted outcome.
    struct Counted: Sendable, Hashable {
        var items: Int
        var completedAt: Date
        var status: OutcomeStatus

        /// Whether its delivery called the backend (`OutcomeStatus.called`).
        var called: Bool { status.called }
    }

    /// The batch, as its latest manifest says (`iidbatch batches watch` follows it to `submitted`).
    public var manifest: BatchManifest
    /// What a counted outcome answers: the record it names, or, in an outcome that names none
    /// (workers before 0.9.0), its request.
    private enum Answered: Hashable {
        case record(RecordPosition)
        case request(String)
    }

    /// The counted outcome of each record answered.
    private var counted: [Answered: Counted] = [:]
    /// The sum of `counted`'s items.
    public private(set) var itemsDone = 0

    /// Nothing read yet of `manifest`'s batch.
    public init(manifest: BatchManifest) {
        self.manifest = manifest
    }

    /// Request records with an outcome.
    public var requestsDone: Int { counted.count }

    /// Counts `outcome` when it can be of one of the batch's requests (`BatchManifest.mayOwn`);
    /// returns whether it did. A submit's batch has one record per id, and is counted by id: a
    /// duplicate's rejection (`Outcome.duplicateOf`: the submit run again while its first run's
    /// requests were in flight) says nothing of how that request ends, and is not counted. A
    /// replay's records of one id (two dead letters not folded together) are counted each, by the
    /// record their outcomes name: the second, turned away as a duplicate of the first in flight,
    /// is answered by that rejection, with no result for its items (an outcome that names no
    /// record, of a worker before 0.9.0, counts by id).
    @discardableResult
    public mutating func read(_ outcome: Outcome) -> Bool {
        guard manifest.mayOwn(outcome) else { return false }
        let key: Answered
        if manifest.idPrefix == nil, let record = outcome.record {
            key = .record(record)
        } else {
            guard outcome.duplicateOf == nil else { return false }
            key = .request(outcome.requestID)
        }
        let new = Counted(items: outcome.counts.values.reduce(0, +), completedAt: outcome.completedAt, status: outcome.status)
        if let old = counted[key], old.called, !new.called { return true }
        itemsDone += new.items - (counted[key]?.items ?? 0)
        counted[key] = new
        return true
    }

    /// Whether every request record of the manifest has an outcome.
    public var isComplete: Bool { manifest.state == .submitted && requestsDone >= manifest.requests }

    /// Once the batch is complete, the items of the manifest no outcome gave a result: those of
    /// records rejected (refused by the worker, or a request of another batch in flight with the
    /// same id), whose records went to the dead-letter topic (`iidbatch batches receipt` lists
    /// them); 0 before.
    public var itemsWithoutResult: Int { isComplete ? max(0, manifest.items - itemsDone) : 0 }

    /// The state, given the cancels of its pipeline in force and whether the pipeline is paused:
    /// `cancelled` before every request is answered only for a cancel of the whole batch (not
    /// of one request, not bounded in time) of a batch on one request topic.
    public func state(cancels: some Sequence<ControlCancel>, paused: Bool) -> BatchState {
        if isComplete { return counted.values.contains { $0.status == .cancelled } ? .cancelled : .done }
        let cancelling = cancels.contains { cancel in
            // A cancel of one request (naming its id) is that request's, not the batch's; one
            // bounded in time leaves the records produced after its bound running (the batch ends
            // when every request is answered, cancelled or not).
            cancel.requestID == nil && (cancel.batch == nil || cancel.batch == manifest.name) && cancel.producedBefore == nil
        }
        // A batch across pipelines (a replay to several topics) is cancelled whole only where each
        // pipeline cancels it: until every request is answered, it runs.
        if cancelling, manifest.requestTopics.count <= 1 { return .cancelled }
        if manifest.state == .submitting { return .submitting }
        return paused ? .paused : .running
    }

    /// Items per second completed in the last `rateWindow` before `now`.
    public func rate(at now: Date) -> Double {
        let window = min(Self.rateWindow, now.timeIntervalSince(manifest.createdAt))
        guard window > 0 else { return 0 }
        let since = now.addingTimeInterval(-window)
        let items = counted.values.reduce(0) { sum, outcome in outcome.completedAt > since && outcome.completedAt <= now ? sum + outcome.items : sum }
        return Double(items) / window
    }

    /// Seconds until every item is done at the rate of `now`: 0 when done, nil when nothing
    /// completed in the window (no rate to go by).
    public func secondsLeft(at now: Date) -> TimeInterval? {
        if isComplete { return 0 }
        let rate = rate(at: now)
        guard rate > 0 else { return nil }
        return Double(max(0, manifest.items - itemsDone)) / rate
    }
}
