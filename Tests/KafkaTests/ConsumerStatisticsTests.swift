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

    /// A group that never committed (a new deletions group whose first erasures all stall):
    /// librdkafka's consumer_lag is -1, yet the backlog is there to be read from the earliest
    /// offset (auto.offset.reset=earliest), and the lag alerts need it.
    @Test("a partition whose group never committed reports its backlog: last stable (or high) less low watermark")
    func neverCommitted() throws {
        let json = """
            {"name": "rdkafka#consumer-1", "type": "consumer", "topics": {
              "iidbatch.deletions": {"topic": "iidbatch.deletions", "partitions": {
                "0": {"partition": 0, "fetch_state": "active", "app_offset": 130, "stored_offset": -1001,
                      "committed_offset": -1001, "lo_offset": 100, "hi_offset": 610, "ls_offset": 600,
                      "consumer_lag": -1, "consumer_lag_stored": -1},
                "1": {"partition": 1, "committed_offset": -1001, "lo_offset": 0, "hi_offset": 40, "consumer_lag": -1},
                "2": {"partition": 2, "committed_offset": -1001, "lo_offset": -1001, "hi_offset": -1001,
                      "ls_offset": -1001, "consumer_lag": -1},
                "3": {"partition": 3, "committed_offset": 70, "lo_offset": 0, "hi_offset": 90, "ls_offset": 90,
                      "consumer_lag": 20},
                "4": {"partition": 4, "committed_offset": 5, "lo_offset": 0, "hi_offset": -1001, "consumer_lag": -1},
                "5": {"partition": 5, "committed_offset": -1001, "lo_offset": 50, "hi_offset": 50, "ls_offset": 50,
                      "consumer_lag": -1},
                "6": {"partition": 6, "committed_offset": 100, "stored_offset": 180, "lo_offset": 0, "hi_offset": 200,
                      "ls_offset": 200, "consumer_lag": 100, "consumer_lag_stored": 20},
                "7": {"partition": 7, "committed_offset": -1001, "stored_offset": 30, "lo_offset": 0, "hi_offset": 90,
                      "ls_offset": 90, "consumer_lag": -1, "consumer_lag_stored": 60}}}}}
            """
        let statistics = try #require(KafkaConsumerStatistics(json: json))
        let topic = "iidbatch.deletions"
        #expect(
            statistics.lag == [
                KafkaTopicPartition(topic: topic, partition: 0): 500,  // read_committed: up to the last stable offset
                KafkaTopicPartition(topic: topic, partition: 1): 40,  // no ls_offset: the high watermark
                KafkaTopicPartition(topic: topic, partition: 3): 20,  // committed: librdkafka's own lag
                KafkaTopicPartition(topic: topic, partition: 5): 0,  // never committed, nothing to read
                KafkaTopicPartition(topic: topic, partition: 6): 20,  // finished work waiting for a commit is not lag
                KafkaTopicPartition(topic: topic, partition: 7): 60,  // stored before its first commit: not the whole backlog
            ])
    }
}
