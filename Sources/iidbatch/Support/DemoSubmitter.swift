import Kafka
import Pipeline

/// Produces the demo's records: one lane per (topic, key), sent in order and each send awaited,
/// so that records of one key keep their order; many lanes at once.
enum DemoSubmitter {
    /// Sends `records`; records without an id are expected under their `topic/partition/offset`
    /// once written.
    static func submit(_ records: [DemoWorkload.Record], configuration: KafkaConfiguration, collector: OutcomeCollector, lanes width: Int = 64) async throws {
        var lanes: [String: [DemoWorkload.Record]] = [:]
        var order: [String] = []
        for record in records {
            let lane = record.topic + "\u{0}" + record.key
            if lanes[lane] == nil { order.append(lane) }
            lanes[lane, default: []].append(record)
        }
        let producer = try KafkaProducer(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for lane in order {
                if running >= width {
                    try await group.next()
                    running -= 1
                }
                running += 1
                let laneRecords = lanes[lane]!
                group.addTask {
                    for record in laneRecords {
                        let report = try await producer.send(topic: record.topic, key: Array(record.key.utf8), value: record.value)
                        if record.id == nil { collector.expect(RecordPosition(report).description) }
                    }
                }
            }
            try await group.waitForAll()
        }
        await producer.close()
    }
}
