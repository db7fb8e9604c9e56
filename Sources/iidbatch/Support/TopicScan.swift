import Foundation
import Kafka

/// Reads whole topics for the operator commands, with errors that say which topic and broker.
enum TopicScan {
    /// Calls `body` with every record of `topics` that exists now (or, with `follow`, until
    /// cancelled), in offset order per partition; `body` returns false to stop early. With
    /// `since`, records whose timestamp is before it are skipped (a record without a timestamp is
    /// kept).
    ///
    /// - Throws: `RuntimeError` naming the topics and brokers: `.unavailable` when the cluster
    ///   does not answer within `timeout`, `.config` when it has no such topic.
    static func read(
        _ topics: [String], kafka: KafkaConfiguration, timeout: KafkaTimeout, follow: Bool = false, since: Date? = nil,
        _ body: (KafkaRecord) async throws -> Bool
    ) async throws {
        let reader: KafkaTopicReader
        do { reader = try await KafkaTopicReader(configuration: kafka, topics: topics, follow: follow, timeout: timeout.duration) } catch {
            throw timeout.failure("reading \(topics.joined(separator: ", "))", kafka, error)
        }
        defer { reader.close() }
        for try await record in reader.records {
            if let since, let stamp = record.timestamp, stamp < since { continue }
            guard try await body(record) else { return }
        }
    }
}
