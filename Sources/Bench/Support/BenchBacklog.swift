import CommandSupport
import Foundation
import Kafka
import Pipeline

/// The requests a worker benchmark produces before its worker starts, and the check that the
/// broker kept them all.
enum BenchBacklog {
    /// Partitions enough for the embedded broker (about 5 MiB kept per partition) to keep
    /// `requests` records of `bytesPerRequest` each, at least 4.
    static func partitions(requests: Int, bytesPerRequest: Int) -> Int {
        max(4, requests * (bytesPerRequest + 200) / (3 * 1_048_576) + 1)
    }

    /// Produces `requests` requests of `shape`, items from `pools`, to `topic`; on the embedded
    /// broker (`spread` partitions, made here) spread evenly over them, on another cluster
    /// placed by their keys. Returns how many were produced; throws when the embedded broker
    /// did not keep them all, which would leave the benchmark waiting for outcomes that never
    /// come.
    static func produce(
        _ shape: BenchShape, requests: Int, pools: BenchShape.Pools, topic: String, kafka: KafkaConfiguration, spread: Int?
    ) async throws -> Int {
        let producer = try KafkaProducer(configuration: kafka.withDefaults(["linger.ms": "20", "message.max.bytes": "10000000"]))
        let produced = try await producer.sendInOrder(
            (0..<requests).lazy.map { number in
                let (key, request) = shape.request(number, pools: pools)
                return KafkaProducerRecord(
                    topic: topic, key: Array(key.utf8), value: Array(request.jsonBody()), partition: spread.map { Int32(number % $0) })
            })
        await producer.close()
        if let spread {
            let backlog = try await KafkaTopicReader(configuration: kafka, topics: [topic])
            let kept = backlog.remaining
            backlog.close()
            guard kept == Int64(produced) else {
                throw RuntimeError(
                    .config,
                    "the embedded broker kept \(kept) of the \(produced) request records (it keeps about 5 MiB per partition); raise --partitions above \(spread)"
                )
            }
        }
        return produced
    }
}
