import Foundation
import InstanceAPI
import Kafka
import WireJSON

/// One request while its items are being worked on: each item's final result as it arrives,
/// and, once all are final, the outcome and the dead letter to publish.
struct RequestState: Sendable {
    let request: PipelineRequest
    let partition: KafkaTopicPartition
    let offset: Int64
    let generation: AssignmentGeneration
    let key: [UInt8]?
    /// The bytes of its record's key and value, which its items point into: what it holds
    /// against `max-in-flight-bytes`.
    let recordBytes: Int
    let receivedAt: Date
    /// When its record was produced (the record's timestamp), for cancels' bounds.
    let producedAt: Date?
    /// The distinct finals of its items: items that ended alike share one.
    private var finals: [ItemFinal] = []
    /// Per item, the index of its final in `finals`, or -1 while it has none.
    private var slots: [Int32]
    private(set) var remaining: Int
    /// Attempts that carried at least one of its items.
    var backendCalls = 0
    /// An earlier delivery of its record in this worker, abandoned at a revoke, had started a
    /// call for it: that call may still take effect, so no cancel may say none was made.
    var calledBefore = false
    /// Whether a call was started for it: in this delivery, or in one this worker abandoned.
    var hasCalled: Bool { backendCalls > 0 || calledBefore }

    init(request: PipelineRequest, record: KafkaRecord, generation: AssignmentGeneration, receivedAt: Date) {
        self.request = request
        self.partition = record.topicPartition
        self.offset = record.offset
        self.generation = generation
        self.key = record.key
        self.recordBytes = Self.bytes(of: record)
        self.receivedAt = receivedAt
        self.producedAt = record.timestamp
        slots = Array(repeating: -1, count: request.items.count)
        remaining = request.items.count
    }

    /// Where its record was read: what its outcome names as `record`.
    var position: RecordPosition { RecordPosition(topic: partition.topic, partition: partition.partition, offset: offset) }

    /// The bytes `record` holds in memory while its request is in flight: its key and value.
    static func bytes(of record: KafkaRecord) -> Int { (record.key?.count ?? 0) + (record.value?.count ?? 0) }

    /// Records the final answer of items `indexes` after `attempts` attempts in this worker, at
    /// `time`. A second answer for an item is ignored.
    mutating func finish(_ indexes: Range<Int>, _ answer: ItemAnswer, attempts made: Int, lastError: String?, at time: Date) {
        var slot: Int32?
        for index in indexes.clamped(to: slots.indices) where slots[index] < 0 {
            if slot == nil {
                slot = Int32(finals.count)
                finals.append(ItemFinal(answer: answer, attempts: request.priorAttempts + made, lastError: lastError, at: time))
            }
            slots[index] = slot!
            remaining -= 1
        }
    }

    /// Item `index`'s final, if it has one.
    private func final(_ index: Int) -> ItemFinal? { slots[index] < 0 ? nil : finals[Int(slots[index])] }

    private func code(_ index: Int) -> ResultCode { slots[index] < 0 ? .internal : finals[Int(slots[index])].answer.result.code }

    /// The outcome, once every item is final.
    func outcome(completedAt: Date) -> Outcome {
        var counts: [String: Int] = [:]
        var failed: [FailedItem] = []
        var imports: [String: String] = [:]
        var lists: [String: [String]] = [:]
        var succeeded = 0
        // Per distinct final, read once; items mostly end in long runs of one final, counted per
        // run, not hashed per item.
        let codes = finals.map(\.answer.result.code)
        let succeeds = codes.map(\.isSuccess)
        let extras = finals.map { $0.answer.list != nil || ($0.answer.value != nil && request.op == .apnsImport) }
        var run: (code: ResultCode, count: Int)?
        func count(_ code: ResultCode) {
            if run?.code == code {
                run!.count += 1
            } else {
                if let run { counts[run.code.rawValue, default: 0] += run.count }
                run = (code, 1)
            }
        }
        var lastSlot: Int32 = -2
        for index in slots.indices {
            let slot = slots[index]
            // The same final as the item before, and nothing per item to collect: one more of it.
            if slot == lastSlot, slot >= 0, succeeds[Int(slot)], !extras[Int(slot)] {
                run!.count += 1
                succeeded += 1
                continue
            }
            lastSlot = slot
            guard slot >= 0 else {
                count(.internal)
                failed.append(FailedItem(index: index, item: request.items[index], code: .internal, attempts: 0, message: "no result"))
                continue
            }
            let code = codes[Int(slot)]
            count(code)
            guard succeeds[Int(slot)] else {
                let final = finals[Int(slot)]
                failed.append(
                    FailedItem(
                        index: index, item: request.items[index], code: code, attempts: final.attempts,
                        message: final.answer.result.message ?? final.lastError))
                continue
            }
            succeeded += 1
            guard extras[Int(slot)] else { continue }
            if request.op == .apnsImport, code == .ok, let token = finals[Int(slot)].answer.value { imports[request.items[index]] = token }
            if let list = finals[Int(slot)].answer.list { lists[request.items[index]] = list }
        }
        if let run { counts[run.code.rawValue, default: 0] += run.count }
        let receipt =
            request.op != .installationsDelete
            ? nil
            : request.items.indices.map { index in
                ItemReceipt(item: request.items[index], code: code(index), at: final(index)?.at ?? completedAt)
            }
        var notificationKey: String?
        if case .group(_, let key) = request.target { notificationKey = slots.lazy.compactMap { $0 < 0 ? nil : finals[Int($0)].answer.value }.first ?? key }
        return Outcome(
            requestID: request.id, op: request.op, target: request.target.outcomeFields,
            status: OutcomeStatus.of(succeeded: succeeded, failed: slots.count - succeeded), counts: counts, failedItems: failed,
            imports: request.op == .apnsImport ? imports : nil, receipt: receipt, notificationKey: notificationKey,
            topics: request.target == .info(details: true) ? lists : nil, groupMembers: request.op == .groupsExport ? lists : nil,
            replayOf: request.replayOf, record: position, batch: request.batch, backendCalls: backendCalls, receivedAt: receivedAt,
            completedAt: completedAt)
    }

    /// The outcome of the request cancelled by `cancel` at `now`, before any call was made for it
    /// in this delivery: every item counted as `Outcome.cancelledItems`, the cancel named in
    /// `reason`. (An earlier delivery of the record, cut short by a crash or a rebalance before
    /// its outcome, may have called for some items; `Reconciliation` and receipts keep an outcome
    /// that called over a later cancelled one.)
    func cancelledOutcome(by cancel: ControlCancel, at now: Date) -> Outcome {
        Outcome(
            requestID: request.id, op: request.op, target: request.target.outcomeFields, status: .cancelled,
            counts: [Outcome.cancelledItems: request.items.count], failedItems: [],
            // A deletion's receipt names each installation left as it was: what an erasure
            // report holds against the subject until another delivery deletes it.
            receipt: request.op == .installationsDelete
                ? request.items.map { ItemReceipt(item: $0, code: .cancelled, at: now) } : nil,
            reason: "cancelled with no backend call made for it in this delivery: \(cancel)".utf8Prefix(maxBytes: RequestRejection.maxReasonBytes),
            replayOf: request.replayOf, record: position, batch: request.batch, backendCalls: 0, receivedAt: receivedAt, completedAt: now)
    }

    /// For `groups.export`: a record per group found, in request order, for the export topic.
    func groupExports() -> [GroupExport] {
        guard request.op == .groupsExport else { return [] }
        return slots.indices.compactMap { index in
            guard let final = final(index), final.answer.result.code.isSuccess, let key = final.answer.value, let members = final.answer.list else {
                return nil
            }
            return GroupExport(group: request.items[index], notificationKey: key, members: members, exportedAt: final.at, requestID: request.id)
        }
    }

    /// The dead letter: a request of the items that ended on a retryable code, or nil. It keeps
    /// the request's batch, so that a cancel of the batch holds for it (`CancelledLetters`).
    func deadLetter() -> (request: PipelineRequest, lastError: String, attempts: Int, codes: [String])? {
        let indexes = slots.indices.filter { code($0).isRetryable }
        guard let first = indexes.first else { return nil }
        // Held at what a request may say: the letter must replay.
        let attemptsMade = min(indexes.map { final($0)?.attempts ?? 0 }.max() ?? 0, PipelineRequest.maxPriorAttempts)
        let firstCode = code(first).rawValue
        let lastError = final(first)?.lastError ?? final(first)?.answer.result.message.map { "\(firstCode): \($0)" } ?? firstCode
        let letter = PipelineRequest(
            id: request.id, op: request.op, target: request.target, items: indexes.reduce(into: PackedStrings()) { $0.append($1, of: request.items) },
            replayOf: request.replayOf, priorAttempts: attemptsMade, batch: request.batch)
        let codes = Set(indexes.map { code($0).rawValue }).sorted()
        return (letter, lastError, attemptsMade, codes)
    }
}
