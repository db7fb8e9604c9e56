import Kafka
import Testing

@Suite("Reading whole topics without a group", .serialized)
struct TopicReaderTests {
    @Test("reads every partition to the end it had at the start, then ends; commits nothing")
    func readsToEnd() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("reader")
        let empty = uniqueName("reader-empty")
        try kafka.createTopic(topic, partitions: 3)
        try kafka.createTopic(empty, partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        _ = try await produce(producer, topic: topic, count: 500) { i in (Array("k\(i % 7)".utf8), Array("v\(i)".utf8), []) }

        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic, empty])
        #expect(reader.endOffsets.count == 5)
        #expect(reader.endOffsets.values.reduce(0, +) == 500)
        // Records produced after the reader started are not part of its snapshot.
        _ = try await produce(producer, topic: topic, count: 20) { i in (nil, Array("late\(i)".utf8), []) }
        let values = try await withTimeout(60, "reading") {
            var values: [String] = []
            for try await record in reader.records { values.append(String(decoding: record.value ?? [], as: UTF8.self)) }
            return values
        }
        #expect(values.count == 500)
        #expect(Set(values) == Set((0..<500).map { "v\($0)" }))
        #expect(reader.isAtEnd)
        reader.close()
        await producer.close()
    }

    @Test("a partition that ends in a transaction's commit marker is read to its end, and the read ends")
    func endsAfterTransactionMarker() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("reader-txn")
        try kafka.createTopic(topic, partitions: 1)
        let producer = try KafkaProducer(configuration: kafka.configuration(["transactional.id": uniqueName("txn")]))
        try await producer.initTransactions()
        try await producer.beginTransaction()
        for i in 0..<5 { _ = try await producer.send(topic: topic, key: nil, value: Array("t\(i)".utf8)) }
        try await producer.commitTransaction()
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        // A real broker writes a commit marker at offset 5 (high watermark 6), which is never
        // handed out as a record; librdkafka 2.0.2's mock cluster writes none (watermark 5). The
        // reader ends on the end-of-partition event either way, not on the last record's offset.
        #expect(reader.endOffsets.values.first.map { (5...6).contains($0) } == true)
        let values = try await withTimeout(60, "reading past the marker") {
            var values: [String] = []
            for try await record in reader.records { values.append(String(decoding: record.value ?? [], as: UTF8.self)) }
            return values
        }
        #expect(values == (0..<5).map { "t\($0)" })
        #expect(reader.isAtEnd)
        reader.close()
        await producer.close()
    }

    @Test("follow keeps reading records produced later")
    func follows() async throws {
        let (kafka, topic, reader, producer) = try await Self.following("follow")
        defer { withExtendedLifetime(kafka) {} }
        _ = try await produce(producer, topic: topic, count: 30) { i in (nil, Array("v\(i)".utf8), []) }
        let count = try await withTimeout(60, "following") {
            var count = 0
            for try await _ in reader.records {
                count += 1
                if count == 30 { break }
            }
            return count
        }
        #expect(count == 30)
        reader.close()
        await producer.close()
    }

    @Test("close ends a following read, also one waiting for records that never come")
    func closeEndsFollowing() async throws {
        let (kafka, topic, reader, producer) = try await Self.following("follow-close")
        defer { withExtendedLifetime(kafka) {} }
        _ = try await producer.send(topic: topic, key: nil, value: Array("only".utf8))
        let (events, event) = AsyncStream.makeStream(of: String.self)
        let reading = Task {
            var count = 0
            for try await _ in reader.records {
                count += 1
                event.yield("record")
            }
            event.yield("ended after \(count)")
        }
        // The read has its one record and goes on to wait for more, which never come.
        _ = try await withTimeout(60, "the first record") { await events.first { _ in true } }
        reader.close()
        // Not cancelled: the read must end because the reader was closed. (Read from the stream,
        // not the task's value, so that a read that does not end fails after the timeout.)
        let ended = try await withTimeout(60, "the read to end after close") { await events.first { $0.hasPrefix("ended") } }
        #expect(ended == "ended after 1")
        reading.cancel()
        await producer.close()
    }

    /// An embedded cluster with a new two-partition topic named after `prefix`, a reader following
    /// it and a producer to it. Keep `kafka` alive while they are used.
    private static func following(
        _ prefix: String
    ) async throws -> (kafka: EmbeddedKafka, topic: String, reader: KafkaTopicReader, producer: KafkaProducer) {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName(prefix)
        try kafka.createTopic(topic, partitions: 2)
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic], follow: true)
        return (kafka, topic, reader, try KafkaProducer(configuration: kafka.configuration()))
    }

    @Test("a topic the cluster does not have is named in the error")
    func missingTopic() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        await #expect {
            _ = try await KafkaTopicReader(configuration: kafka.configuration(), topics: ["no-such-topic"])
        } throws: { error in
            "\(error)".contains("no-such-topic")
        }
    }
}
