import Foundation
import Kafka

/// Publishing outcomes and dead letters, and storing offsets behind them.
extension PipelineWorker {
    /// A record to publish next to an outcome.
    struct DeadLetterRecord: Sendable {
        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
        var items: Int
    }

    /// A record that is not a valid request: a `rejected` outcome and its bytes dead-lettered.
    func reject(_ record: KafkaRecord, _ rejection: RequestRejection, receivedAt: Date) {
        logger.info("rejected \(record.topicPartition) offset \(record.offset): \(rejection)")
        let id = rejection.requestID ?? "\(record.topic)/\(record.partition)/\(record.offset)"
        let outcome = Outcome(
            requestID: id, op: rejection.op, target: [:], status: .rejected, counts: [:], failedItems: [], reason: rejection.description,
            replayOf: rejection.replayOf, backendCalls: 0, receivedAt: receivedAt, completedAt: Date())
        let headers = DeadLetterHeader.headers(
            partition: record.topicPartition, offset: record.offset, requestID: rejection.requestID, error: rejection.description,
            attempts: 0, undecodable: true)
        publish(outcome, DeadLetterRecord(key: record.key, value: record.value, headers: headers, items: 1),
                partition: record.topicPartition, offset: record.offset)
    }

    /// Every item of a request is final: publish its outcome and dead letter.
    func complete(handle: Int, _ state: RequestState) {
        itemsInFlight -= state.request.items.count
        if requestByID[state.request.id] == handle { requestByID[state.request.id] = nil }
        let outcome = state.outcome(completedAt: Date())
        for (code, count) in outcome.counts { statistics.itemCodes[state.request.op.rawValue, default: [:]][code, default: 0] += count }
        let deadLetter = state.deadLetter().map { letter in
            DeadLetterRecord(
                key: state.key, value: Array(letter.request.jsonBody()),
                headers: DeadLetterHeader.headers(
                    partition: state.partition, offset: state.offset, requestID: state.request.id, error: letter.lastError,
                    attempts: letter.attempts, codes: letter.codes, undecodable: false),
                items: letter.request.items.count)
        }
        publish(outcome, deadLetter, partition: state.partition, offset: state.offset)
        updateBackpressure()
    }

    private func publish(_ outcome: Outcome, _ deadLetter: DeadLetterRecord?, partition: KafkaTopicPartition, offset: Int64) {
        let value: [UInt8]
        do { value = Array(try Outcome.encoder().encode(outcome)) } catch {
            logger.error("cannot encode the outcome of \(outcome.requestID): \(error)")
            return
        }
        publishing += 1
        let producer = self.producer
        let topics = (outcome: configuration.outcomeTopic, deadLetter: configuration.deadLetterTopic)
        spawn {
            // The dead letter first: whoever sees an outcome can replay its dead letter at once.
            var delivered = true
            if let deadLetter {
                delivered = await self.deliver(producer, topic: topics.deadLetter, key: deadLetter.key, value: deadLetter.value, headers: deadLetter.headers)
            }
            if delivered {
                delivered = await self.deliver(producer, topic: topics.outcome, key: Array(outcome.requestID.utf8), value: value, headers: [])
            }
            await self.published(outcome, deadLetter: deadLetter, partition: partition, offset: offset, delivered: delivered)
        }
    }

    /// Sends until the broker acknowledges, or the worker stopped (then the record stays unstored
    /// and is delivered again).
    private nonisolated func deliver(
        _ producer: KafkaProducer, topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader]
    ) async -> Bool {
        while true {
            do {
                _ = try await producer.send(topic: topic, key: key, value: value, headers: headers)
                return true
            } catch {
                logger.warning("publishing to \(topic) failed, trying again: \(error)")
                guard await phase != .stopped else { return false }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func published(_ outcome: Outcome, deadLetter: DeadLetterRecord?, partition: KafkaTopicPartition, offset: Int64, delivered: Bool) {
        publishing -= 1
        guard delivered else { return }
        statistics.outcomes[outcome.op ?? "?", default: [:]][outcome.status, default: 0] += 1
        statistics.latency.record(.milliseconds(Int64(Date().timeIntervalSince(outcome.receivedAt) * 1_000)))
        if let deadLetter {
            statistics.deadLetters += 1
            statistics.deadLetterItems += deadLetter.items
        }
        tracker.completed(partition, offset: offset)
        storeOffsets()
    }
}
