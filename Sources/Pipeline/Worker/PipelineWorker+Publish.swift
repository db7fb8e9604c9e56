import Foundation
import Kafka

extension PipelineWorker {
    /// How a publication ended.
    enum PublishResult: Sendable, Equatable {
        /// Acknowledged by the broker.
        case delivered
        /// The worker stopped first: the record stays unstored and is delivered again.
        case abandoned
        /// The broker or client refused it for good (too large, unknown or forbidden topic, a
        /// fatal producer): retrying cannot help.
        case refused(topic: String, KafkaError)
    }

    /// Sends `records` side by side, each until acknowledged; the first result that is not
    /// `.delivered` is the result of all.
    nonisolated func deliverAll(_ producer: KafkaProducer, topic: String, _ records: [(key: [UInt8], value: [UInt8])]) async -> PublishResult {
        // Most publications export nothing: no task group for them.
        guard !records.isEmpty else { return .delivered }
        return await withTaskGroup(of: PublishResult.self) { group in
            for record in records {
                group.addTask { await self.deliver(producer, topic: topic, key: record.key, value: record.value, headers: []) }
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
            spawn {
                // Exported groups and the dead letter first: whoever sees an outcome finds its
                // groups in the export topic and can replay its dead letter at once.
                var result = await self.deliverAll(producer, topic: topics.export, exports)
                if result == .delivered, let deadLetter = publication.deadLetter {
                    result = await self.deliver(producer, topic: topics.deadLetter, key: deadLetter.key, value: deadLetter.value, headers: deadLetter.headers)
                }
                if result == .delivered {
                    result = await self.deliver(producer, topic: topics.outcome, key: Array(publication.outcome.requestID.utf8), value: value, headers: [])
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
        case .refused(let topic, let error):
            book.publishFailed(publication.ticket)
            await fail(.publish(topic: topic, requestID: publication.outcome.requestID, error))
        }
        updateBackpressure()
        resumeWaiters()
        updateGauges()
    }
}
