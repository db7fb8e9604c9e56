import Foundation
import InstanceAPI
import Kafka

/// One request while its items are being worked on: each item's final result as it arrives,
/// and, once all are final, the outcome and the dead letter to publish.
struct RequestState: Sendable {
    let request: PipelineRequest
    let partition: KafkaTopicPartition
    let offset: Int64
    let generation: AssignmentGeneration
    let key: [UInt8]?
    let receivedAt: Date
    private var finals: [ItemFinal?]
    private(set) var remaining: Int
    /// Attempts that carried at least one of its items.
    var backendCalls = 0

    init(request: PipelineRequest, record: KafkaRecord, generation: AssignmentGeneration, receivedAt: Date) {
        self.request = request
        self.partition = record.topicPartition
        self.offset = record.offset
        self.generation = generation
        self.key = record.key
        self.receivedAt = receivedAt
        finals = Array(repeating: nil, count: request.items.count)
        remaining = request.items.count
    }

    /// Records item `index`'s final answer after `attempts` attempts in this worker, at `time`.
    /// A second answer for the same item is ignored.
    mutating func finish(_ index: Int, _ answer: ItemAnswer, attempts made: Int, lastError: String?, at time: Date) {
        guard finals.indices.contains(index), finals[index] == nil else { return }
        finals[index] = ItemFinal(answer: answer, attempts: request.priorAttempts + made, lastError: lastError, at: time)
        remaining -= 1
    }

    private func code(_ index: Int) -> ResultCode { finals[index]?.answer.result.code ?? .internal }

    /// The outcome, once every item is final.
    func outcome(completedAt: Date) -> Outcome {
        var counts: [String: Int] = [:]
        var failed: [FailedItem] = []
        var imports: [String: String] = [:]
        var lists: [String: [String]] = [:]
        var succeeded = 0
        // Items mostly end in long runs of one code: counted per run, not hashed per item. Each
        // item's fields are read in place (a copy of its final retains every string it holds).
        var run: (code: ResultCode, count: Int)?
        let collectsImports = request.op == .apnsImport
        for index in finals.indices {
            let code = finals[index]?.answer.result.code ?? .internal
            if run?.code == code {
                run!.count += 1
            } else {
                if let run { counts[run.code.rawValue, default: 0] += run.count }
                run = (code, 1)
            }
            guard code.isSuccess else {
                failed.append(
                    FailedItem(
                        index: index, item: request.items[index], code: code, attempts: finals[index]?.attempts ?? 0,
                        message: finals[index] == nil ? "no result" : finals[index]?.answer.result.message ?? finals[index]?.lastError))
                continue
            }
            succeeded += 1
            if collectsImports, code == .ok, let token = finals[index]?.answer.value { imports[request.items[index]] = token }
            if let list = finals[index]?.answer.list { lists[request.items[index]] = list }
        }
        if let run { counts[run.code.rawValue, default: 0] += run.count }
        let receipt =
            request.op != .installationsDelete
            ? nil
            : request.items.indices.map { index in
                ItemReceipt(item: request.items[index], code: code(index), at: finals[index]?.at ?? completedAt)
            }
        var notificationKey: String?
        if case .group(_, let key) = request.target { notificationKey = finals.lazy.compactMap { $0?.answer.value }.first ?? key }
        return Outcome(
            requestID: request.id, op: request.op, target: request.target.outcomeFields,
            status: OutcomeStatus.of(succeeded: succeeded, failed: finals.count - succeeded), counts: counts, failedItems: failed,
            imports: request.op == .apnsImport ? imports : nil, receipt: receipt, notificationKey: notificationKey,
            topics: request.target == .info(details: true) ? lists : nil, groupMembers: request.op == .groupsExport ? lists : nil,
            replayOf: request.replayOf, backendCalls: backendCalls, receivedAt: receivedAt, completedAt: completedAt)
    }

    /// For `groups.export`: a record per group found, in request order, for the export topic.
    func groupExports() -> [GroupExport] {
        guard request.op == .groupsExport else { return [] }
        return finals.indices.compactMap { index in
            guard let final = finals[index], final.answer.result.code.isSuccess, let key = final.answer.value, let members = final.answer.list else {
                return nil
            }
            return GroupExport(group: request.items[index], notificationKey: key, members: members, exportedAt: final.at, requestID: request.id)
        }
    }

    /// The dead letter: a request of the items that ended on a retryable code, or nil.
    func deadLetter() -> (request: PipelineRequest, lastError: String, attempts: Int, codes: [String])? {
        let indexes = finals.indices.filter { code($0).isRetryable }
        guard let first = indexes.first else { return nil }
        let attemptsMade = indexes.map { finals[$0]?.attempts ?? 0 }.max() ?? 0
        let firstCode = code(first).rawValue
        let lastError = finals[first]?.lastError ?? finals[first]?.answer.result.message.map { "\(firstCode): \($0)" } ?? firstCode
        let letter = PipelineRequest(
            id: request.id, op: request.op, target: request.target, items: indexes.map { request.items[$0] },
            replayOf: request.replayOf, priorAttempts: attemptsMade)
        let codes = Set(indexes.map { code($0).rawValue }).sorted()
        return (letter, lastError, attemptsMade, codes)
    }
}
