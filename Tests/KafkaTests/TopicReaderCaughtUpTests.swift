import Foundation
import Kafka
import Testing

/// `KafkaTopicReader.hasCaughtUp(on:timeout:)`: a follower knows when no record that exists now
/// is still to come (what `reconcile --wait` asks before it calls a ledger complete).
@Suite("A follower knows when it has read what exists")
struct TopicReaderCaughtUpTests {
    @Test("false while records of the topic are unread, true once every one is read, false again when another is produced")
    func caughtUp() async throws {
        let kafka = try EmbeddedKafka(brokers: 1)
        defer { kafka.shutdown() }
        let topic = uniqueName("caught-up")
        try kafka.createTopic(topic, partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        try await producer.sendInOrder((0..<10).map { KafkaProducerRecord(topic: topic, key: nil, value: Array("\($0)".utf8), partition: Int32($0 % 2)) })
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic], follow: true)
        defer { reader.close() }
        #expect(try await !reader.hasCaughtUp(on: [topic], timeout: .seconds(30)))
        var read = 0
        for try await _ in reader.records {
            read += 1
            if read == 10 { break }
        }
        #expect(try await reader.hasCaughtUp(on: [topic], timeout: .seconds(30)))
        await #expect(throws: KafkaError.self, "a topic the reader does not read is refused, not taken as read") {
            try await reader.hasCaughtUp(on: ["another-topic"], timeout: .seconds(30))
        }
        try await producer.sendInOrder([KafkaProducerRecord(topic: topic, key: nil, value: Array("late".utf8), partition: 1)])
        #expect(try await !reader.hasCaughtUp(on: [topic], timeout: .seconds(30)), "a record produced since is still to come")
        await producer.close()
    }
}
