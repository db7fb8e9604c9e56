/// The events of a `KafkaConsumer` as an `AsyncSequence`; it ends when the consumer is closed or
/// the iterating task is cancelled. Iterate it from one task at a time.
public struct KafkaConsumerEvents: AsyncSequence, Sendable {
    public typealias Element = KafkaConsumerEvent
    public typealias Failure = KafkaError

    let consumer: KafkaConsumer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(consumer: consumer) }

    /// Pulls one event at a time from the consumer.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer

        public mutating func next() async throws(KafkaError) -> KafkaConsumerEvent? {
            try await consumer.nextEvent()
        }
    }
}
