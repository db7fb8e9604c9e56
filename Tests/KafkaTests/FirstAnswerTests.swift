import Kafka
import Testing

/// `sendInOrder(firstAnswerWithin:)`: a cluster that never answers the first record ends the
/// send within the limit, not after librdkafka's `message.timeout.ms` (5 minutes by default);
/// one that answers is not cut short.
@Suite("KafkaProducer.sendInOrder: the first answer's deadline")
struct FirstAnswerTests {
    @Test("no broker at the address: the send fails with .timedOut within the limit, and close(timeout: .zero) returns at once")
    func noBroker() async throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.logHandler = { _, _ in }
        let producer = try KafkaProducer(configuration: configuration)
        let records = (0..<3).map { KafkaProducerRecord(topic: "first-answer", key: nil, value: Array("\($0)".utf8)) }
        let started = ContinuousClock.now
        let outcome = try await withTimeout(120, "a send to no broker") { [records] () async -> Result<Int, KafkaError> in
            do throws(KafkaError) { return .success(try await producer.sendInOrder(records, firstAnswerWithin: .seconds(1))) } catch { return .failure(error) }
        }
        let waited = ContinuousClock.now - started
        guard case .failure(.timedOut(_, let timeout)) = outcome else {
            Issue.record("expected .timedOut, got \(outcome)")
            return
        }
        #expect(timeout == .seconds(1))
        // Far below librdkafka's own 300 s message timeout, which would end the send without the
        // deadline; generous, since a loaded test run can hold a timer back for many seconds.
        #expect(waited >= .seconds(1) && waited < .seconds(100), "waited \(waited)")
        let closing = ContinuousClock.now
        await producer.close(timeout: .zero)
        #expect(ContinuousClock.now - closing < .seconds(100), "the records no broker took do not hold the close (300 s if they did)")
    }

    @Test("a cluster that answers: every record is sent, none cut short by the deadline")
    func answered() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("first-answer")
        try kafka.createTopic(topic, partitions: 2)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        let records = (0..<500).map { KafkaProducerRecord(topic: topic, key: Array("k\($0 % 7)".utf8), value: Array("\($0)".utf8)) }
        let count = try await withTimeout(120, "a send to the embedded cluster") { [records] in
            try await producer.sendInOrder(records, firstAnswerWithin: .seconds(30))
        }
        #expect(count == 500)
        await producer.close()
    }
}
