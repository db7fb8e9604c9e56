import Synchronization

/// The producer's records handed to librdkafka and not yet reported: each one's completion runs
/// exactly once, by its delivery report or, when the producer closes before librdkafka reported
/// it, by `failAll`. So no `send` can wait forever on a closed producer.
final class RDKafkaDeliveries: Sendable {
    private let outstanding = Mutex<[ObjectIdentifier: RDKafkaDelivery]>([:])

    /// A box for one record, registered until it completes; pass `retainedOpaque()` to librdkafka.
    func make(_ completion: @escaping @Sendable (RDKafkaDelivery.Result) -> Void) -> RDKafkaDelivery {
        let registry = self
        let box = RDKafkaDelivery { result in completion(result) }
        let id = ObjectIdentifier(box)
        box.onFinish = { registry.outstanding.withLock { _ = $0.removeValue(forKey: id) } }
        outstanding.withLock { $0[id] = box }
        return box
    }

    /// Completes every record still outstanding with `result` (their reports will never come).
    func failAll(with result: RDKafkaDelivery.Result) {
        let boxes = outstanding.withLock { boxes in
            defer { boxes.removeAll() }
            return Array(boxes.values)
        }
        for box in boxes { box.finish(result) }
    }
}
