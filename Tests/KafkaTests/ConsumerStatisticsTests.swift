import Kafka
import Testing

@Suite("librdkafka statistics, typed")
struct ConsumerStatisticsTests {
    @Test("consumer lag per partition; the UA partition and unknown lags are left out; other JSON is refused")
    func parse() throws {
        let json = """
            {"name": "rdkafka#consumer-1", "topics": {
              "requests": {"partitions": {
                "0": {"partition": 0, "consumer_lag": 12, "hi_offset": 40},
                "1": {"partition": 1, "consumer_lag": -1},
                "-1": {"partition": -1, "consumer_lag": 99}}},
              "other": {"partitions": {"3": {"consumer_lag": 0}}}}}
            """
        let statistics = try #require(KafkaConsumerStatistics(json: json))
        #expect(statistics.lag == [KafkaTopicPartition(topic: "requests", partition: 0): 12, KafkaTopicPartition(topic: "other", partition: 3): 0])
        #expect(KafkaConsumerStatistics(json: "not json") == nil)
        #expect(KafkaConsumerStatistics(json: "[1, 2]") == nil)
    }
}
