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
        await withTaskGroup(of: PublishResult.self) { group in
            for record in records {
                group.addTask { await self.deliver(producer, topic: topic, key: record.key, value: record.value, headers: []) }
            }
            var result = PublishResult.delivered
            for await each in group where result == .delivered { result = each }
            return result
        }
    }

    /// Sends until the broker acknowledges. Transient errors are retried with backoff (0.1 s
    /// doubling to 5 s) while the worker runs; a permanent one ends the attempt at once.
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
                if case .closed = error { return .abandoned }
                logger.warning("publishing to \(topic) failed, trying again in \(backoff): \(error)")
                do { try await Task.sleep(for: backoff) } catch { return .abandoned }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
