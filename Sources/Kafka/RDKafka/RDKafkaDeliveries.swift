import Synchronization

/// The producer's records handed to librdkafka and not yet reported: each one's completion runs
/// exactly once, by its delivery report or, when the producer closes before librdkafka reported
/// it, by `failAll`. So no `send` can wait forever on a closed producer.
final class RDKafkaDeliveries: Sendable {
    /// The boxes outstanding, nil once `failAll` ran: none is registered after it.
    private let outstanding = Mutex<[ObjectIdentifier: RDKafkaDelivery]?>([:])

    /// A box for one record, registered until it completes; pass `retainedOpaque()` to librdkafka.
    /// Nil once `failAll` ran (the producer closed): a record sent then would never be reported.
    func make(_ completion: @escaping @Sendable (RDKafkaDelivery.Result) -> Void) -> RDKafkaDelivery? {
        let registry = self
        let box = RDKafkaDelivery { result in completion(result) }
        let id = ObjectIdentifier(box)
        box.onFinish = { registry.outstanding.withLock { _ = $0?.removeValue(forKey: id) } }
        return outstanding.withLock { boxes in
            guard boxes != nil else { return nil }
            boxes?[id] = box
            return box
        }
    }

    /// Completes every record still outstanding with `result` (their reports will never come),
    /// and registers none from now on.
    func failAll(with result: RDKafkaDelivery.Result) {
        let boxes = outstanding.withLock { boxes in
            defer { boxes = nil }
            return boxes.map { Array($0.values) } ?? []
        }
        for box in boxes { box.finish(result) }
    }
}
