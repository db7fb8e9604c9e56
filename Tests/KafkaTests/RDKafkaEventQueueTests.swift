import Testing

@testable import Kafka

@Suite("The order a consumer hands out what librdkafka served")
struct RDKafkaEventQueueTests {
    let p0 = KafkaTopicPartition(topic: "t", partition: 0)
    let p1 = KafkaTopicPartition(topic: "t", partition: 1)

    func record(_ partition: KafkaTopicPartition, _ offset: Int64) -> KafkaRecord {
        KafkaRecord(topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: [1])
    }

    /// A short name for what the queue handed out, to compare.
    func name(_ event: RDKafkaEventQueue.Event?) -> String {
        switch event {
        case nil: "poll"
        case .record(let record): "record \(record.partition)@\(record.offset)"
        case .rebalance(.assigned(let partitions)): "assigned \(partitions.map(\.partition))"
        case .rebalance(.revoked(let partitions, _, _)): "revoked \(partitions.map(\.partition))"
        }
    }

    @Test("with nothing reported, a polled record is handed out at once and nothing waits")
    func plainRecord() {
        var queue = RDKafkaEventQueue()
        #expect(name(queue.next()) == "poll")
        #expect(name(queue.polled(record(p0, 3))) == "record 0@3")
        #expect(name(queue.next()) == "poll")
    }

    @Test("a record polled after the callback assigned its partition comes after the assignment")
    func recordAfterAssignment() {
        var queue = RDKafkaEventQueue()
        // One poll ran the callback (assigning p0 and p1) and then returned p0's first record.
        queue.rebalanced(.assigned([p0]))
        queue.rebalanced(.assigned([p1]))
        #expect(name(queue.polled(record(p0, 22))) == "assigned [0]")
        #expect(name(queue.next()) == "assigned [1]")
        #expect(name(queue.next()) == "record 0@22")
        #expect(name(queue.next()) == "poll")
    }

    @Test("a record polled after a revocation of its partition is dropped; one of another partition is kept")
    func recordAfterRevocation() {
        var queue = RDKafkaEventQueue()
        queue.rebalanced(.revoked([p0], lost: false, cooperative: true))
        #expect(name(queue.polled(record(p0, 9))) == "revoked [0]")
        #expect(name(queue.next()) == "poll", "its partition's next owner reads it from the committed offset")

        queue.rebalanced(.revoked([p0], lost: false, cooperative: true))
        #expect(name(queue.polled(record(p1, 4))) == "revoked [0]")
        #expect(name(queue.next()) == "record 1@4")
    }

    @Test("rebalances reported while nothing was polled come out oldest first")
    func rebalancesInOrder() {
        var queue = RDKafkaEventQueue()
        queue.rebalanced(.revoked([p0, p1], lost: true, cooperative: false))
        queue.rebalanced(.assigned([p0]))
        #expect(name(queue.next()) == "revoked [0, 1]")
        #expect(name(queue.next()) == "assigned [0]")
        #expect(name(queue.next()) == "poll")
    }
}
