import Kafka
import Testing

@Suite("Produce and consume round trip", .serialized)
struct RoundTripTests {
    @Test("10,000 records keep key, value bytes, headers and per-partition order")
    func roundTrip() async throws {
        let kafka = try EmbeddedKafka(brokers: 3)
        let topic = uniqueName("round-trip")
        try kafka.createTopic(topic, partitions: 4)
        let count = 10_000
        // Binary values (every byte value, varying length), repeated header keys and null values.
        @Sendable func record(_ i: Int) -> (key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader]) {
            let key: [UInt8]? = i % 97 == 0 ? nil : Array("lane-\(i % 8)".utf8)
            let value: [UInt8]? = i % 89 == 0 ? nil : (0..<(i % 300)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            let headers = [
                KafkaHeader(key: "seq", string: "\(i)"),
                KafkaHeader(key: "dup", value: [0, 255, UInt8(i % 256)]),
                KafkaHeader(key: "dup", value: nil),
                KafkaHeader(key: "empty", value: []),
            ]
            return (key, value, headers)
        }
        let producer = try KafkaProducer(configuration: kafka.configuration(["linger.ms": "2"]))
        let reports = try await withTimeout(180, "producing") {
            try await produce(producer, topic: topic, count: count, record: record)
        }
        await producer.close()
        #expect(reports.count == count)

        let consumer = try KafkaConsumer(configuration: kafka.consumerConfiguration(), groupID: uniqueName("g"), topics: [topic])
        let received = try await withTimeout(180, "consuming") {
            var received: [KafkaRecord] = []
            for try await event in consumer.events {
                if case .record(let r) = event {
                    received.append(r)
                    if received.count == count { break }
                }
            }
            return received
        }
        try await consumer.close()

        #expect(received.count == count)
        var byPlace: [KafkaTopicPartition: [Int64: Int]] = [:]
        for (index, report) in reports {
            byPlace[KafkaTopicPartition(topic: report.topic, partition: report.partition), default: [:]][report.offset] = index
        }
        var lastOffset: [Int32: Int64] = [:]
        var lastSeqPerKey: [[UInt8]: Int] = [:]
        var mismatches = 0
        for r in received {
            // Offsets arrive in increasing order within each partition.
            #expect(r.offset > lastOffset[r.partition, default: -1])
            lastOffset[r.partition] = r.offset
            guard let index = byPlace[r.topicPartition]?[r.offset] else {
                Issue.record("record at \(r.topicPartition)@\(r.offset) was never produced")
                continue
            }
            let expected = record(index)
            if r.key != expected.key || r.value != expected.value || r.headers != expected.headers { mismatches += 1 }
            // Sequential sends of one key keep their send order.
            if let key = r.key {
                #expect(index > lastSeqPerKey[key, default: -1])
                lastSeqPerKey[key] = index
            }
        }
        #expect(mismatches == 0)
        #expect(Set(received.map { "\($0.partition)/\($0.offset)" }).count == count)
        #expect(lastOffset.count == 4, "all four partitions were used")
    }

    @Test("an empty value is not a null value")
    func emptyVersusNull() async throws {
        let kafka = try EmbeddedKafka()
        let topic = uniqueName("empty")
        try kafka.createTopic(topic)
        let producer = try KafkaProducer(configuration: kafka.configuration())
        _ = try await producer.send(topic: topic, key: [], value: [])
        _ = try await producer.send(topic: topic, key: nil, value: nil)
        await producer.close()
        let consumer = try KafkaConsumer(configuration: kafka.consumerConfiguration(), groupID: uniqueName("g"), topics: [topic])
        let records = try await withTimeout(60) {
            var records: [KafkaRecord] = []
            for try await case .record(let r) in consumer.events {
                records.append(r)
                if records.count == 2 { break }
            }
            return records
        }
        try await consumer.close()
        #expect(records[0].key == [] && records[0].value == [])
        #expect(records[1].key == nil && records[1].value == nil)
    }
}
