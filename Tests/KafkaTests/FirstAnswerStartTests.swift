import Foundation
import Kafka
import Testing

/// `sendInOrder(firstAnswerWithin:)` counts the broker's time, not the caller's: the deadline
/// starts when the first record is handed over, so a sequence slow to make its first record
/// (reading and encoding the input) is not taken for a broker that does not answer.
@Suite("KafkaProducer.sendInOrder: the first answer's deadline starts at the first record")
struct FirstAnswerStartTests {
    @Test("a first record that takes longer than the limit to make still gets the whole limit for its answer")
    func slowFirstRecord() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("first-answer-start")
        try kafka.createTopic(topic, partitions: 1)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        let outcome = try await withTimeout(120, "a send whose first record is slow to make") { () async -> Result<Int, KafkaError> in
            // The first record is made 3 s after the send begins, three times the limit; the
            // cluster then answers at once.
            let records = (0..<3).lazy.map { index in
                if index == 0 { Thread.sleep(forTimeInterval: 3) }
                return KafkaProducerRecord(topic: topic, key: nil, value: Array("\(index)".utf8))
            }
            do throws(KafkaError) { return .success(try await producer.sendInOrder(records, firstAnswerWithin: .seconds(1))) } catch {
                return .failure(error)
            }
        }
        #expect(outcome == .success(3), "the deadline counted the time before the first record was handed over: \(outcome)")
        await producer.close()
    }
}
