import Foundation
import Kafka

extension PipelineWorker {
    /// How a publication ended.
    enum PublishResult: Sendable, Equatable {
        /// Acknowledged by the broker.
        case delivered
        /// The worker stopped first: the record stays unstored and is delivered again.
        case abandoned
        /// The client or the broker refused this record as too large (`MSG_SIZE_TOO_LARGE`): a
        /// smaller form of it may pass.
        case tooLarge(topic: String, KafkaError)
        /// The broker or client refused it for good (unknown or forbidden topic, a fatal
        /// producer, or its smallest form too large): retrying cannot help.
        case refused(topic: String, KafkaError)
    }

    /// Whether `error` refuses one record for its size, not the topic or the producer.
    static func isTooLarge(_ error: KafkaError) -> Bool {
        error.code == .messageSizeTooLarge || error.code == .recordListTooLarge
    }

    /// Sends the exports of request `requestID` side by side, each until acknowledged; the first
    /// result that is not `.delivered` is the result of all. An export refused as too large is
    /// left out, with a warning: the outcome lists the group's members too.
    nonisolated func deliverExports(
        _ producer: KafkaProducer, topic: String, _ records: [(key: [UInt8], value: [UInt8])], requestID: String
    ) async -> PublishResult {
        // Most publications export nothing: no task group for them.
        guard !records.isEmpty else { return .delivered }
        return await withTaskGroup(of: PublishResult.self) { group in
            for record in records {
                group.addTask {
                    let result = await self.deliver(producer, topic: topic, key: record.key, value: record.value, headers: [])
                    guard case .tooLarge(_, let error) = result else { return result }
                    self.logger.warning(
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
    /// doubling to 5 s) while the worker runs; a permanent one ends the attempt at once. When the
    /// stop cancels the task (`run()` cancels its tasks once the stop has drained, committed and
    /// left the group), the send's wait ends at once: the publication is abandoned.
    nonisolated func deliver(
        _ producer: KafkaProducer, topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader]
    ) async -> PublishResult {
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

    /// Sends a dead letter until acknowledged: whole when it takes at most `maxBytes` bytes and
    /// the cluster takes it, else its stub (`DeadLetter.stub(of:)`). A stub refused
    /// as too large is `.refused`: the cluster takes no record of a few kilobytes.
    nonisolated func deliverDeadLetter(
        _ producer: KafkaProducer, topic: String, _ deadLetter: Publication.DeadLetterRecord, maxBytes: Int, requestID: String
    ) async -> PublishResult {
        var letter = DeadLetter.fitted(deadLetter, maxBytes: maxBytes)
        while true {
            if letter.isStub {
                logger.warning(
                    "the dead letter of request '\(RequestID.shortForm(requestID))' (\(deadLetter.bytes) bytes) is published as a stub: its value is left out"
                )
            }
            let result = await deliver(producer, topic: topic, key: letter.key, value: letter.value, headers: letter.headers)
            guard case .tooLarge(_, let error) = result else { return result }
            guard !letter.isStub else { return .refused(topic: topic, error) }
            letter = DeadLetter.stub(of: letter)
        }
    }

    /// Sends an outcome until acknowledged: `value`, or when the cluster refuses it as too large,
    /// the outcome without its item lists (`Outcome.withoutItemLists(because:)`). That form refused
    /// as too large too is `.refused`: the cluster takes no record of a few hundred bytes.
    nonisolated func deliverOutcome(_ producer: KafkaProducer, topic: String, _ outcome: Outcome, value: [UInt8]) async -> PublishResult {
        let key = Array(outcome.requestID.utf8)
        let result = await deliver(producer, topic: topic, key: key, value: value, headers: [])
        guard case .tooLarge(_, let error) = result else { return result }
        logger.warning(
            "the outcome of request '\(RequestID.shortForm(outcome.requestID))' (\(value.count) bytes) was refused as too large; publishing it without its item lists: \(error)"
        )
        let compact = outcome.withoutItemLists(because: "\(error)")
        let retried = await deliver(producer, topic: topic, key: key, value: compact.wireBytes(limit: .max), headers: [])
        guard case .tooLarge(_, let refusal) = retried else { return retried }
        return .refused(topic: topic, refusal)
    }

    // MARK: - Publishing

    func publish(_ publications: [Publication]) {
        for publication in publications {
            statistics.noteCompleted(publication.outcome)
            let value: [UInt8]
            let exports: [(key: [UInt8], value: [UInt8])]
            do {
                value = publication.outcome.wireBytes(limit: configuration.maxOutcomeBytes)
                exports = try publication.groupExports.map { ($0.recordKey, try $0.wireBytes()) }
            } catch {
                // Outcomes are plain values; this cannot fail short of a bug. Do not lose the record.
                spawn { await self.fail(.unpublishable(requestID: publication.outcome.requestID, reason: "\(error)")) }
                continue
            }
            let producer = self.producer
            let topics = (outcome: configuration.outcomeTopic, deadLetter: configuration.deadLetterTopic, export: configuration.exportTopic)
            let maxDeadLetterBytes = configuration.maxDeadLetterBytes
            spawn {
                // Exported groups and the dead letter first: whoever sees an outcome finds its
                // groups in the export topic and can replay its dead letter at once.
                let requestID = publication.outcome.requestID
                var result = await self.deliverExports(producer, topic: topics.export, exports, requestID: requestID)
                if result == .delivered, let deadLetter = publication.deadLetter {
                    result = await self.deliverDeadLetter(producer, topic: topics.deadLetter, deadLetter, maxBytes: maxDeadLetterBytes, requestID: requestID)
                }
                if result == .delivered {
                    result = await self.deliverOutcome(producer, topic: topics.outcome, publication.outcome, value: value)
                }
                await self.published(publication, result)
            }
        }
    }

    private func published(_ publication: Publication, _ result: PublishResult) async {
        switch result {
        case .delivered:
            let outcome = publication.outcome
            let latency = Duration.milliseconds(Int64(Date().timeIntervalSince(outcome.receivedAt) * 1_000))
            statistics.notePublished(outcome, deadLetterItems: publication.deadLetter?.items, latency: latency)
            if let deadLetter = publication.deadLetter { metrics.deadLettered(kind: deadLetter.kind.rawValue) }
            metrics.outcomePublished(op: outcome.op?.rawValue ?? "none", status: outcome.status.rawValue, codes: outcome.counts, latency: latency)
            storeOffsets(book.published(publication.ticket))
        case .abandoned:
            book.publishFailed(publication.ticket)
        case .refused(let topic, let error), .tooLarge(let topic, let error):
            book.publishFailed(publication.ticket)
            await fail(.publish(topic: topic, requestID: publication.outcome.requestID, error))
        }
        updateBackpressure()
        resumeWaiters()
        updateGauges()
    }
}
