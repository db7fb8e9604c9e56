import Kafka
import Pipeline
import Testing

/// The worker's producer settings: what it needs for its largest records, and a linger that
/// gathers outcomes into fewer produce requests, each under the operator's own settings.
@Suite("Producer defaults")
struct ProducerDefaultsTests {
    @Test("outcomes linger 20 ms unless the operator set linger.ms; message.max.bytes stays the pipelines' largest")
    func lingerUnlessSet() {
        var large = PipelineConfiguration(name: "large", requestTopic: "r1")
        large.maxRecordBytes = 8 << 20
        let small = PipelineConfiguration(name: "small", requestTopic: "r2")
        let defaults = PipelineConfiguration.producerDefaults(for: [small, large])
        let plain = KafkaConfiguration(bootstrapServers: "b:9092").withDefaults(defaults)
        #expect(plain.properties["linger.ms"] == "20")
        #expect(plain.properties["message.max.bytes"] == large.producerDefaults["message.max.bytes"])
        let own = KafkaConfiguration(bootstrapServers: "b:9092", properties: ["linger.ms": "5", "message.max.bytes": "2000000"]).withDefaults(defaults)
        #expect(own.properties["linger.ms"] == "5", "the operator's linger wins")
        #expect(own.properties["message.max.bytes"] == "2000000")
    }
}
