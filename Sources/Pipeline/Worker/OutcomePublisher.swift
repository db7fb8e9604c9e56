import Foundation
import Kafka
import Logging

/// Sends a worker's publications (a request's exported groups, its dead letter, its outcome)
/// until the broker acknowledges them, each in the smallest form the cluster takes: the I/O
/// half of `WorkerAction.publish`, which reports a `PublishResult`.
struct OutcomePublisher: Sendable {
    /// Where a publication goes.
    struct Topics: Sendable {
        var outcome: String
        var deadLetter: String
        var export: String
    }

    let producer: KafkaProducer
    let topics: Topics
    /// The most bytes a dead letter may take whole (`max-dead-letter-bytes`).
    let maxDeadLetterBytes: Int
    let logger: Logger

    /// Whether `error` refuses one record for its size, not the topic or the producer.
    static func isTooLarge(_ error: KafkaError) -> Bool {
        error.code == .messageSizeTooLarge || error.code == .recordListTooLarge
    }

    /// Exported groups and the dead letter first, then the outcome: whoever sees an outcome finds
    /// its groups in the export topic and can replay its dead letter at once. The first result
    /// that is not `.delivered` is the result of all. `value` is the outcome's wire form.
    func publish(_ publication: Publication, value: [UInt8], exports: [(key: [UInt8], value: [UInt8])]) async -> PublishResult {
        let requestID = publication.outcome.requestID
        var result = await deliverExports(exports, requestID: requestID)
        if result == .delivered, let deadLetter = publication.deadLetter {
            result = await deliverDeadLetter(deadLetter, requestID: requestID)
        }
        if result == .delivered {
            result = await deliverOutcome(publication.outcome, value: value)
        }
        return result
    }

    /// Sends the exports of request `requestID` side by side, each until acknowledged. An export
    /// refused as too large is left out, with a warning: the outcome lists the group's members too.
    private func deliverExports(_ records: [(key: [UInt8], value: [UInt8])], requestID: String) async -> PublishResult {
        // Most publications export nothing: no task group for them.
        guard !records.isEmpty else { return .delivered }
        return await withTaskGroup(of: PublishResult.self) { group in
            for record in records {
                group.addTask {
                    let result = await deliver(topic: topics.export, key: record.key, value: record.value, headers: [])
                    guard case .tooLarge(_, let error) = result else { return result }
                    logger.warning(
                        "an export of request '\(RequestID.shortForm(requestID))' (\(record.key.count + record.value.count) bytes) was refused as too large and is left out: \(error)"
                    )
                    return .delivered
                }
            }
            var result = PublishResult.delivered
            for await each in group where result == .delivered { result = each }
            return result
        }
    }

    /// Sends until the broker acknowledges. Transient errors are retried with backoff (0.1 s
    /// doubling to 5 s); a permanent one ends the attempt at once. When the stop cancels the task
    /// (`run()` cancels its tasks once the stop has drained, committed and left the group), the
    /// send's wait ends at once: the publication is abandoned.
    private func deliver(topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader]) async -> PublishResult {
        var backoff = Duration.milliseconds(100)
        while true {
            do {
                _ = try await producer.send(topic: topic, key: key, value: value, headers: headers)
                return .delivered
            } catch {
                if Self.isTooLarge(error) { return .tooLarge(topic: topic, error) }
                if error.isPermanentForProducer { return .refused(topic: topic, error) }
                // Closed, or cancelled because the worker stopped (the record may still be stored,
                // but it is not acknowledged: its offset is not stored, so it is read again).
                switch error {
                case .closed, .cancelled: return .abandoned
                default: break
                }
                logger.warning("publishing to \(topic) failed, trying again in \(backoff): \(error)")
                do { try await Task.sleep(for: backoff) } catch { return .abandoned }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Sends a dead letter until acknowledged: whole when it takes at most `maxDeadLetterBytes`
    /// and the cluster takes it, else its stub (`DeadLetter.stub(of:)`). A stub
    /// refused as too large is `.refused`: the cluster takes no record of a few kilobytes. One
    /// without a key refused as `INVALID_RECORD` (a compacted topic takes no record without a key)
    /// goes again keyed by its original position (`DeadLetter.keyedByPosition(_:)`), with a
    /// warning: refused for good, the worker would stop at that record after every restart.
    private func deliverDeadLetter(_ deadLetter: Publication.DeadLetterRecord, requestID: String) async -> PublishResult {
        var letter = DeadLetter.fitted(deadLetter, maxBytes: maxDeadLetterBytes)
        while true {
            if DeadLetter.isStub(letter) {
                logger.warning(
                    "the dead letter of request '\(RequestID.shortForm(requestID))' (\(deadLetter.bytes) bytes) is published as a stub: its value is left out"
                )
            }
            let result = await deliver(topic: topics.deadLetter, key: letter.key, value: letter.value, headers: letter.headers)
            if case .refused(_, let error) = result, error.code == .invalidRecord, letter.key == nil {
                logger.warning(
                    "\(topics.deadLetter) refused the dead letter of request '\(RequestID.shortForm(requestID))' without a key (\(error)): publishing it keyed by its original position \(letter.position). A compacted dead-letter topic refuses records without a key and keeps only the latest dead letter of each key: make it cleanup.policy=delete"
                )
                letter = DeadLetter.keyedByPosition(letter)
                continue
            }
            guard case .tooLarge(_, let error) = result else { return result }
            guard !DeadLetter.isStub(letter) else { return .refused(topic: topics.deadLetter, error) }
            letter = DeadLetter.stub(of: letter)
        }
    }

    /// Sends an outcome until acknowledged: `value`, or when the cluster refuses it as too large,
    /// the outcome without its item lists (`Outcome.withoutItemLists(because:)`). That form refused
    /// as too large too is `.refused`: the cluster takes no record of a few hundred bytes.
    private func deliverOutcome(_ outcome: Outcome, value: [UInt8]) async -> PublishResult {
        let key = Array(outcome.requestID.utf8)
        let result = await deliver(topic: topics.outcome, key: key, value: value, headers: [])
        guard case .tooLarge(_, let error) = result else { return result }
        logger.warning(
            "the outcome of request '\(RequestID.shortForm(outcome.requestID))' (\(value.count) bytes) was refused as too large; publishing it without its item lists: \(error)"
        )
        let compact = outcome.withoutItemLists(because: "\(error)")
        let retried = await deliver(topic: topics.outcome, key: key, value: compact.wireBytes(limit: .max), headers: [])
        guard case .tooLarge(_, let refusal) = retried else { return retried }
        return .refused(topic: topics.outcome, refusal)
    }
}
