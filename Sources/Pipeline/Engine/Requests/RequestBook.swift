import Foundation
import Kafka

/// The worker's books, as a pure state machine: the requests it holds, the items and record bytes
/// they count against the in-flight bounds (`ReadGate` decides what to do about them), their
/// offsets, and which assignment each belongs to.
///
/// Guarantees:
/// - An offset is handed out for storing only when every record at or below it in the same
///   assignment has had its outcome (and dead letter) acknowledged.
/// - A request's items count against `maxInFlightItems`, and its record's bytes (key and value)
///   against `maxInFlightBytes`, from its arrival until its outcome is acknowledged, or until it
///   is abandoned at a revoke. A rejected record's bytes count until its dead letter and outcome
///   are acknowledged (they hold the record).
/// - An acknowledgement from an earlier assignment of a partition releases its items but never
///   moves the later assignment's store point.
struct RequestBook: Sendable {
    /// What became of a record handed to the book.
    enum Admission: Sendable {
        /// A redelivery of a record already held, or a record arriving while stopping: ignored.
        case ignored
        /// A new request to plan.
        case admitted(RequestHandle, PipelineRequest)
        /// Not a valid request: publish its rejection.
        case rejected(Publication)
    }

    /// The bound on items held.
    private(set) var maxInFlightItems: Int
    /// The bound on record bytes held.
    let maxInFlightBytes: Int
    private var tracker = OffsetTracker()
    private var requests: [RequestHandle: RequestState] = [:]
    private var handleByID: [String: RequestHandle] = [:]
    private var nextHandle: RequestHandle = 0
    private var publishing: [KafkaTopicPartition: Int] = [:]
    private var assigned: Set<KafkaTopicPartition> = []
    /// The records of requests abandoned at a revoke after a call was started for them (that call
    /// may still take effect), the oldest first, at most `mostCalledAndAbandoned`: delivered
    /// again, such a request is never cancelled (`RequestState.calledBefore`).
    private var calledAndAbandoned = CalledRecords()
    /// Items of requests held or being published.
    private(set) var itemsInFlight = 0
    /// The most items held at once.
    private(set) var peakItemsInFlight = 0
    /// Record bytes of requests held or being published.
    private(set) var bytesInFlight = 0
    /// The most record bytes held at once.
    private(set) var peakBytesInFlight = 0

    /// Books holding at most about `maxInFlightItems` items and `maxInFlightBytes` record bytes.
    init(maxInFlightItems: Int, maxInFlightBytes: Int) {
        self.maxInFlightItems = maxInFlightItems
        self.maxInFlightBytes = maxInFlightBytes
    }

    // MARK: - Queries

    /// What is held now, for `ReadGate`.
    var held: ReadGate.Load { ReadGate.Load(items: itemsInFlight, bytes: bytesInFlight) }

    /// The bounds on what is held, for `ReadGate`.
    var bound: ReadGate.Load { ReadGate.Load(items: maxInFlightItems, bytes: maxInFlightBytes) }

    /// Requests received and not yet acknowledged (publishing included).
    var requestsInFlight: Int { tracker.inFlight }

    /// True when nothing is held and nothing is being published.
    var isIdle: Bool { requests.isEmpty && publishing.values.allSatisfy { $0 == 0 } }

    /// Partitions currently assigned.
    var assignedPartitions: Set<KafkaTopicPartition> { assigned }

    /// The requests held for `partitions` (not yet publishing).
    func handles(in partitions: Set<KafkaTopicPartition>) -> Set<RequestHandle> {
        Set(requests.filter { partitions.contains($0.value.partition) }.keys)
    }

    /// Publications under way for `partitions`.
    func publishing(in partitions: Set<KafkaTopicPartition>) -> Int {
        partitions.reduce(0) { $0 + (publishing[$1] ?? 0) }
    }

    /// True while an outcome (or dead letter) is on its way to the broker.
    var isPublishing: Bool { publishing.values.contains { $0 > 0 } }

    // MARK: - Events

    /// The bound changes (an operator override).
    mutating func setMaxInFlightItems(_ items: Int) {
        maxInFlightItems = items
    }

    /// `partitions` were assigned: each starts a fresh ledger of a new generation.
    mutating func assign(_ partitions: [KafkaTopicPartition]) -> AssignmentGeneration {
        assigned.formUnion(partitions)
        return tracker.assign(partitions)
    }

    /// The generation of `partition`'s current assignment (nil while it is not assigned).
    func generation(of partition: KafkaTopicPartition) -> AssignmentGeneration? {
        tracker.generation(of: partition)
    }

    /// A record arrived, decoded as `decoded`.
    mutating func receive(_ record: KafkaRecord, _ decoded: Result<PipelineRequest, RequestRejection>, at now: Date) -> Admission {
        guard tracker.received(record.topicPartition, offset: record.offset),
            let generation = tracker.generation(of: record.topicPartition)
        else { return .ignored }
        let request: PipelineRequest
        switch decoded {
        case .failure(var rejection):
            // A malformed record with the id of a request in flight of its batch is that
            // request's duplicate too: its rejection says nothing of how the request ends.
            if let id = rejection.requestID, let other = handleByID[id], let state = requests[other], state.request.batch == rejection.batch {
                rejection.duplicateOf = state.position.description
            }
            return .rejected(rejected(record, rejection, kind: .undecodable, generation: generation, at: now))
        case .success(let decoded):
            request = decoded
        }
        if let other = handleByID[request.id], let state = requests[other] {
            let rejection = RequestRejection(
                field: "id", reason: "'\(request.id)' duplicates a request still in flight (\(state.partition) offset \(state.offset))",
                requestID: request.id, op: request.op, replayOf: request.replayOf, batch: request.batch,
                // Named only within one batch: there the request in flight ends the id's work; a
                // record of another batch ends with this rejection (its batch would wait forever).
                duplicateOf: state.request.batch == request.batch ? state.position.description : nil,
                target: request.target.outcomeFields)
            return .rejected(rejected(record, rejection, kind: .duplicate, generation: generation, at: now))
        }
        let handle = nextHandle
        nextHandle = handle.next
        var state = RequestState(request: request, record: record, generation: generation, receivedAt: now)
        state.calledBefore = calledAndAbandoned.remove(state.position)
        requests[handle] = state
        handleByID[request.id] = handle
        hold(request.items.count, bytes: state.recordBytes)
        return .admitted(handle, request)
    }

    /// A call carrying items of `handles` started: the requests of its runs of origins, in order,
    /// one request more than once when its items are in several runs. Each counts the call once.
    mutating func noteCall(for handles: some Sequence<RequestHandle>) {
        // Runs of one request are mostly adjacent: the set is asked only when the request changes.
        var counted: Set<RequestHandle> = []
        var last: RequestHandle?
        for handle in handles where handle != last {
            last = handle
            if counted.insert(handle).inserted { requests[handle]?.backendCalls += 1 }
        }
    }

    /// The held requests no backend call was started for that `cancelOf` finds a cancel of (it
    /// is given each request and when its record was produced), with the cancel; in handle order.
    func cancellable(_ cancelOf: (PipelineRequest, Date?) -> ControlCancel?) -> [(RequestHandle, ControlCancel)] {
        requests.compactMap { handle, state in
            guard !state.hasCalled, let cancel = cancelOf(state.request, state.producedAt) else { return nil }
            return (handle, cancel)
        }.sorted { $0.0 < $1.0 }
    }

    /// Ends held request `handle` as cancelled by `cancel`: its `cancelled` outcome to publish
    /// (no dead letter), or nil when the book does not hold it or a call was started for it.
    mutating func cancel(_ handle: RequestHandle, by cancel: ControlCancel, at now: Date) -> Publication? {
        guard let state = requests[handle], !state.hasCalled else { return nil }
        requests[handle] = nil
        if handleByID[state.request.id] == handle { handleByID[state.request.id] = nil }
        publishing[state.partition, default: 0] += 1
        return Publication(
            outcome: state.cancelledOutcome(by: cancel, at: now), deadLetter: nil,
            ticket: PublishTicket(
                partition: state.partition, offset: state.offset, generation: state.generation, items: state.request.items.count, bytes: state.recordBytes))
    }

    /// Items became final; returns the publications of the requests they completed. Items of
    /// requests the book no longer holds (abandoned at a revoke) are ignored.
    mutating func settle(_ settlements: [ItemSettlement], at now: Date) -> [Publication] {
        var completed: [RequestHandle] = []
        // One lookup per run, and each state is changed in place (never copied with its items).
        for settlement in settlements {
            let handle = settlement.origin.request
            guard let index = requests.index(forKey: handle) else { continue }
            requests.values[index].finish(settlement.indexes, settlement.answer, attempts: settlement.attempts, lastError: settlement.lastError, at: now)
            if requests.values[index].remaining == 0 { completed.append(handle) }
        }
        return completed.compactMap { handle in
            guard let state = requests.removeValue(forKey: handle) else { return nil }
            if handleByID[state.request.id] == handle { handleByID[state.request.id] = nil }
            return publication(of: state, at: now)
        }
    }

    /// A publication was acknowledged: its items are released and its offset is done. Returns the
    /// offsets that may now be stored, for assigned partitions only.
    mutating func published(_ ticket: PublishTicket) -> [KafkaTopicPartition: Int64] {
        endPublishing(ticket)
        tracker.completed(ticket.partition, offset: ticket.offset, generation: ticket.generation)
        return storable()
    }

    /// A publication will never be acknowledged (the worker stopped): its items are released and
    /// its record stays unstored, to be delivered again.
    mutating func publishFailed(_ ticket: PublishTicket) {
        endPublishing(ticket)
    }

    /// Offsets whose store point advanced, for assigned partitions.
    mutating func storable() -> [KafkaTopicPartition: Int64] {
        tracker.takeStorable().filter { assigned.contains($0.key) }
    }

    /// `partitions` moved away: the requests still held for them are abandoned (they will be
    /// delivered to the new owner) and their ledgers are forgotten. Returns the handles abandoned.
    @discardableResult
    mutating func revoke(_ partitions: Set<KafkaTopicPartition>) -> Set<RequestHandle> {
        let abandoned = handles(in: partitions)
        for handle in abandoned {
            guard let state = requests.removeValue(forKey: handle) else { continue }
            if handleByID[state.request.id] == handle { handleByID[state.request.id] = nil }
            if state.hasCalled { calledAndAbandoned.insert(state.position) }
            release(state.request.items.count, bytes: state.recordBytes)
        }
        assigned.subtract(partitions)
        tracker.forget(Array(partitions))
        return abandoned
    }

    // MARK: - Helpers

    private mutating func hold(_ items: Int, bytes: Int) {
        itemsInFlight += items
        peakItemsInFlight = max(peakItemsInFlight, itemsInFlight)
        bytesInFlight += bytes
        peakBytesInFlight = max(peakBytesInFlight, bytesInFlight)
    }

    private mutating func release(_ items: Int, bytes: Int) {
        itemsInFlight -= items
        bytesInFlight -= bytes
    }

    private mutating func endPublishing(_ ticket: PublishTicket) {
        publishing[ticket.partition, default: 1] -= 1
        if publishing[ticket.partition] == 0 { publishing[ticket.partition] = nil }
        release(ticket.items, bytes: ticket.bytes)
    }

    private mutating func publication(of state: RequestState, at now: Date) -> Publication {
        let outcome = state.outcome(completedAt: now)
        let deadLetter = state.deadLetter().map { letter in
            DeadLetter.leftover(
                letter.request, key: state.key, from: state.partition, offset: state.offset, lastError: letter.lastError, attempts: letter.attempts,
                codes: letter.codes)
        }
        publishing[state.partition, default: 0] += 1
        return Publication(
            outcome: outcome, deadLetter: deadLetter, groupExports: state.groupExports(),
            ticket: PublishTicket(
                partition: state.partition, offset: state.offset, generation: state.generation, items: state.request.items.count, bytes: state.recordBytes))
    }

    /// A record that is not a request to work on now: a `rejected` outcome, and its bytes
    /// dead-lettered as read, as `kind`. Until both are published it counts as one item held: it
    /// holds an outcome and a dead letter as an item does, and empty records (tombstones) would
    /// otherwise hold nothing against the bounds, however many were read.
    private mutating func rejected(
        _ record: KafkaRecord, _ rejection: RequestRejection, kind: DeadLetter.Kind, generation: AssignmentGeneration, at now: Date
    ) -> Publication {
        let outcome = Outcome(
            requestID: rejection.requestID ?? RecordPosition(record).description, op: rejection.op, target: rejection.target, status: .rejected, counts: [:],
            failedItems: [], reason: rejection.description, replayOf: rejection.replayOf, duplicateOf: rejection.duplicateOf,
            record: RecordPosition(record), batch: rejection.batch, backendCalls: 0, receivedAt: now, completedAt: now)
        publishing[record.topicPartition, default: 0] += 1
        let bytes = RequestState.bytes(of: record)
        hold(1, bytes: bytes)
        return Publication(
            outcome: outcome, deadLetter: DeadLetter.rejected(record, rejection, kind: kind),
            ticket: PublishTicket(partition: record.topicPartition, offset: record.offset, generation: generation, items: 1, bytes: bytes))
    }
}
