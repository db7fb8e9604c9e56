import Foundation
import InstanceAPI
import Kafka

/// One request while its items are being worked on: each item's final result as it arrives,
/// and, once all are final, the outcome and the dead letter to publish.
struct RequestState: Sendable {
    let request: PipelineRequest
    let partition: KafkaTopicPartition
    let offset: Int64
    let key: [UInt8]?
    let receivedAt: Date
    private var results: [ItemResult?]
    private var attempts: [Int]
    private var values: [String?]
    private var lastErrors: [String?]
    private var finishedAt: [Date?]
    private(set) var remaining: Int
    /// Attempts that carried at least one of its items.
    var backendCalls = 0

    init(request: PipelineRequest, record: KafkaRecord, receivedAt: Date) {
        self.request = request
        self.partition = record.topicPartition
        self.offset = record.offset
        self.key = record.key
        self.receivedAt = receivedAt
        results = Array(repeating: nil, count: request.items.count)
        attempts = Array(repeating: 0, count: request.items.count)
        values = Array(repeating: nil, count: request.items.count)
        lastErrors = Array(repeating: nil, count: request.items.count)
        finishedAt = Array(repeating: nil, count: request.items.count)
        remaining = request.items.count
    }

    /// Records item `index`'s final result after `attempts` attempts in this worker, at `time`.
    mutating func finish(_ index: Int, _ result: ItemResult, value: String?, attempts made: Int, lastError: String?, at time: Date = Date()) {
        guard results[index] == nil else { return }
        results[index] = result
        attempts[index] = request.priorAttempts + made
        values[index] = value
        lastErrors[index] = lastError
        finishedAt[index] = time
        remaining -= 1
    }

    /// The outcome, once every item is final.
    func outcome(completedAt: Date) -> Outcome {
        var counts: [String: Int] = [:]
        var failed: [FailedItem] = []
        var imports: [String: String] = [:]
        for (index, result) in results.enumerated() {
            let result = result ?? ItemResult(.internal, message: "no result")
            counts[result.code.rawValue, default: 0] += 1
            if !result.code.isSuccess {
                failed.append(FailedItem(
                    index: index, item: request.items[index], code: result.code, attempts: attempts[index],
                    message: result.message ?? lastErrors[index]))
            }
            if request.op == .apnsImport, result.code == .ok, let token = values[index] { imports[request.items[index]] = token }
        }
        let receipt = request.op != .installationsDelete ? nil : request.items.indices.map { index in
            ItemReceipt(item: request.items[index], code: results[index]?.code ?? .internal, at: finishedAt[index] ?? completedAt)
        }
        var notificationKey: String?
        if case .group(_, let key) = request.target { notificationKey = values.lazy.compactMap { $0 }.first ?? key }
        return Outcome(
            requestID: request.id, op: request.op.rawValue, target: request.target.outcomeFields,
            status: OutcomeStatus.of(results.map { $0?.code ?? .internal }), counts: counts, failedItems: failed,
            imports: request.op == .apnsImport ? imports : nil, receipt: receipt, notificationKey: notificationKey,
            replayOf: request.replayOf, backendCalls: backendCalls, receivedAt: receivedAt, completedAt: completedAt)
    }

    /// The dead letter: a request of the items that ended on a retryable code, or nil.
    func deadLetter() -> (request: PipelineRequest, lastError: String, attempts: Int, codes: [String])? {
        let indexes = results.indices.filter { results[$0]?.code.isRetryable ?? false }
        guard let first = indexes.first else { return nil }
        let attemptsMade = indexes.map { attempts[$0] }.max() ?? 0
        let code = results[first]!.code.rawValue
        let lastError = lastErrors[first] ?? results[first]!.message.map { "\(code): \($0)" } ?? code
        let letter = PipelineRequest(
            id: request.id, op: request.op, target: request.target, items: indexes.map { request.items[$0] },
            replayOf: request.replayOf, priorAttempts: attemptsMade)
        let codes = Set(indexes.compactMap { results[$0]?.code.rawValue }).sorted()
        return (letter, lastError, attemptsMade, codes)
    }
}
