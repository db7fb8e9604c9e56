import Foundation
import Kafka
import Testing

/// `KafkaTopicReader(since:)` against the embedded cluster, whose brokers answer every time
/// lookup with -1: the reader must see through that and still start at the right record.
@Suite("Reading topics from a time", .serialized)
struct TopicReaderSinceTests {
    private let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// 3 partitions × 2 000 records, stamped one second apart per partition from `base`, with the
    /// record's second as its value.
    private func fill(_ kafka: EmbeddedKafka, _ topic: String) async throws {
        try kafka.createTopic(topic, partitions: 3)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        let records = (0..<6_000).map { n in
            KafkaProducerRecord(
                topic: topic, key: nil, value: Array("\(n / 3)".utf8), partition: Int32(n % 3), timestamp: base.addingTimeInterval(Double(n / 3)))
        }
        try await producer.sendInOrder(records)
        await producer.close()
    }

    @Test("a producer's timestamp is the record's; from a time, each partition starts at its first record at or after it")
    func startsAtTime() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("since")
        try await fill(kafka, topic)
        let since = base.addingTimeInterval(1_900)
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic], since: since)
        defer { reader.close() }
        let records = try await withTimeout(60, "reading") {
            var records: [KafkaRecord] = []
            for try await record in reader.records { records.append(record) }
            return records
        }
        #expect(records.count == 300, "100 per partition")
        #expect(records.allSatisfy { $0.timestamp.map { $0 >= since } ?? false })
        #expect(Set(records.map { String(decoding: $0.value ?? [], as: UTF8.self) }) == Set((1_900..<2_000).map(String.init)))
        #expect(reader.startOffsets.values.allSatisfy { $0 == 1_900 }, "\(reader.startOffsets)")
        #expect(reader.recordsRead == 300)
    }

    @Test("a time after every record starts at the end; before every record, at the beginning; given offsets win")
    func bounds() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("since-bounds")
        try await fill(kafka, topic)
        let late = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic], since: base.addingTimeInterval(5_000))
        #expect(late.isAtEnd && late.startOffsets.values.allSatisfy { $0 == 2_000 })
        late.close()
        let early = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic], since: base.addingTimeInterval(-60))
        #expect(early.remaining == 6_000)
        early.close()
        let given = KafkaTopicPartition(topic: topic, partition: 1)
        let mixed = try await KafkaTopicReader(
            configuration: kafka.configuration(), topics: [topic], from: [given: 10], since: base.addingTimeInterval(1_500))
        #expect(mixed.startOffsets[given] == 10)
        #expect(mixed.startOffsets[KafkaTopicPartition(topic: topic, partition: 0)] == 1_500)
        mixed.close()
    }

    @Test("finish ends one partition early: its records stop, the others are read to their ends")
    func finish() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        let topic = uniqueName("since-finish")
        try await fill(kafka, topic)
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        defer { reader.close() }
        let stopped = KafkaTopicPartition(topic: topic, partition: 2)
        let counts = try await withTimeout(60, "reading") {
            var counts: [Int32: Int] = [:]
            for try await record in reader.records {
                counts[record.partition, default: 0] += 1
                if record.topicPartition == stopped, record.offset == 99 { reader.finish(stopped) }
            }
            return counts
        }
        #expect(counts[0] == 2_000 && counts[1] == 2_000)
        #expect(counts[2] == 100)
        #expect(reader.isAtEnd)
    }
}
