import CommandSupport
import Foundation
import Kafka
import Pipeline

/// Reads whole topics for the operator commands, with errors that say which topic and broker.
/// Given a time, seeks to it instead of reading from the beginning.
enum TopicScan {
    /// How far before `since` a scan starts, and past `until` it reads: the clock skew allowed
    /// between the time a record's content states (an outcome's `completedAt`, stamped by the
    /// worker) and the record's timestamp (stamped by the producing client, or by the broker
    /// under `LogAppendTime`), and the disorder allowed among the timestamps of a topic's
    /// records (several producers, batching). The one owner of this margin.
    static let clockMargin: Duration = .seconds(60)

    /// `clockMargin` as `--help` says it.
    static var clockMarginText: String { DurationText.format(clockMargin) }

    /// How much later than its timestamp a record may be stored: librdkafka's default
    /// `message.timeout.ms` (a producer stamps a record when it is handed over and retries it
    /// through a broker outage for up to that long), while records stamped later are stored
    /// before it. Past `until`, a scan reads this and `clockMargin` further: a dead letter
    /// stamped just before `--until` and stored late is still selected.
    static let lateArrival: Duration = .seconds(300)

    /// How far past `until` a scan reads, as `--help` says it.
    static var untilMarginText: String { DurationText.format(clockMargin + lateArrival) }

    /// How much of the topics a scan went through.
    struct Extent {
        /// Records handed to the caller.
        var read: Int
        /// Records the topics held when the scan began.
        var held: Int64
        /// Per partition, the offset after the last record that existed when the scan began.
        var endOffsets: [KafkaTopicPartition: Int64]
        /// The time reading started from (`since` less `clockMargin`), if any.
        var from: Date?

        /// One line saying how much was read, for a command's stderr.
        func summary(_ command: String, _ topics: [String]) -> String {
            let start = from.map { " from the first record stamped at or after \($0.formatted(.iso8601)) (\(clockMarginText) before --since)" } ?? ""
            return "\(command): read \(read) of \(held) record(s) in \(topics.joined(separator: ", "))\(start)"
        }
    }

    /// A reader of `topics`: from their beginnings, from `offsets` where given, else from the
    /// first record stamped at or after `since` less `clockMargin`.
    ///
    /// - Throws: `RuntimeError` naming the topics and brokers: `.unavailable` when the cluster
    ///   does not answer within `timeout`, `.config` when it has no such topic.
    static func open(
        _ topics: [String], kafka: KafkaConfiguration, timeout: KafkaTimeout, follow: Bool = false, from offsets: [KafkaTopicPartition: Int64] = [:],
        since: Date? = nil
    ) async throws -> KafkaTopicReader {
        do {
            return try await KafkaTopicReader(
                configuration: kafka, topics: topics, follow: follow, from: offsets, since: since.map(start(for:)), timeout: timeout.duration)
        } catch {
            throw timeout.failure("reading \(topics.joined(separator: ", "))", kafka, error)
        }
    }

    /// Where a scan for records from `since` starts.
    static func start(for since: Date) -> Date { since.addingTimeInterval(-clockMargin.seconds) }

    /// Calls `body` with every record of `topics` that exists now (or, with `follow`, until
    /// cancelled), in offset order per partition; `body` returns false to stop early.
    ///
    /// Given `since`, each partition starts at its first record stamped at or after `since` less
    /// `clockMargin` (found by time, not by reading); given `until`, a partition ends at its first
    /// record stamped at or after `until` plus `clockMargin` and `lateArrival`. Records in between are all handed
    /// over: the caller still filters by what the record says.
    ///
    /// - Throws: `RuntimeError` naming the topics and brokers: `.unavailable` when the cluster
    ///   does not answer within `timeout`, `.config` when it has no such topic.
    @discardableResult
    static func read(
        _ topics: [String], kafka: KafkaConfiguration, timeout: KafkaTimeout, follow: Bool = false, since: Date? = nil, until: Date? = nil,
        _ body: (KafkaRecord) async throws -> Bool
    ) async throws -> Extent {
        let reader = try await open(topics, kafka: kafka, timeout: timeout, follow: follow, since: since)
        defer { reader.close() }
        let stop = until.map { $0.addingTimeInterval((clockMargin + lateArrival).seconds) }
        let extent = { Extent(read: reader.recordsRead, held: reader.heldRecords, endOffsets: reader.endOffsets, from: since.map(start(for:))) }
        for try await record in reader.records {
            if let stop, let time = record.timestamp, time >= stop {
                reader.finish(record.topicPartition)
                continue
            }
            guard try await body(record) else { return extent() }
        }
        return extent()
    }
}
