import Foundation
import Synchronization

/// Reads whole topics outside any consumer group, from their first retained record (or the first
/// stamped at or after a time): up to the end each partition had when the reader was created, or
/// on without end (`follow`).
///
/// It joins no group and commits nothing, so it never disturbs the workers' offsets, and any
/// number of readers can read the same topics at once. Operator tools use it to audit outcome,
/// request and dead-letter topics.
public final class KafkaTopicReader: Sendable {
    private let client: RDKafkaClient
    private let follow: Bool
    /// Per partition, the offset after the last record that existed when the reader was created.
    public let endOffsets: [KafkaTopicPartition: Int64]
    /// Per partition, the next offset to hand out; a partition is read to its end once this
    /// reaches `endOffsets`.
    private let positions: Mutex<[KafkaTopicPartition: Int64]>
    /// Per partition, the offset reading started at.
    public let startOffsets: [KafkaTopicPartition: Int64]
    /// Offsets the partitions held when the reader was created, from their first retained to
    /// their end: the records, give or take transaction markers.
    public let heldRecords: Int64
    /// Partitions `finish` ended early: their records are no longer handed out.
    private let finished = Mutex<Set<KafkaTopicPartition>>([])
    /// Records handed out so far.
    private let handedOut = Atomic(0)
    /// Set by `close()`: `records` ends.
    private let closed = Atomic(false)

    /// Starts reading every partition of `topics` from its beginning, or from `starts` where it
    /// names the partition (a later reader goes on where an earlier one ended, at its
    /// `endOffsets`), or else, given `since`, from its first record stamped at or after `since`.
    ///
    /// `since` is looked up with the brokers' offsets-for-times; where a broker cannot look up by
    /// time, by a binary search reading single records (see `KafkaTimeSeek`, which also says how
    /// to allow for timestamps out of order: ask for an earlier time).
    ///
    /// - Parameter follow: false to end at the records that existed now; true to wait for more.
    /// - Throws: `.invalidArgument` naming a topic the cluster does not have, or the broker's error.
    public init(
        configuration: KafkaConfiguration, topics: [String], follow: Bool = false, from given: [KafkaTopicPartition: Int64] = [:],
        since: Date? = nil, timeout: Duration = .seconds(10)
    ) async throws(KafkaError) {
        guard !topics.isEmpty else { throw .invalidArgument(name: "topics", value: "[]", reason: "read at least one topic") }
        // End-of-partition events say where a partition really ends: the last offsets of a
        // transactional topic hold commit markers, which are never handed out as records.
        var configuration = configuration
        configuration["enable.partition.eof"] = "true"
        configuration["group.id"] = "iidbatch-reader-\(UUID().uuidString.prefix(8))"
        configuration["enable.auto.commit"] = "false"
        configuration["enable.auto.offset.store"] = "false"
        // A position retention deleted under the reader goes on from the oldest record left,
        // not silently from the end.
        configuration["auto.offset.reset"] = "earliest"
        let client = try RDKafkaClient(kind: .consumer, configuration: configuration)
        let metadata = try await offload { client.metadata(timeout: timeout) }.get()
        var starts: [KafkaTopicPartition: Int64] = [:]
        var ends: [KafkaTopicPartition: Int64] = [:]
        var held: Int64 = 0
        for name in topics {
            guard let topic = metadata.topic(name) else {
                throw .invalidArgument(
                    name: "topic", value: name, reason: "the cluster has no such topic (topics: \(metadata.topics.map(\.name).joined(separator: ", ")))")
            }
            for partition in topic.partitions {
                let tp = KafkaTopicPartition(topic: name, partition: partition.id)
                let marks = try await offload { client.watermarks(tp, timeout: timeout) }.get()
                starts[tp] = max(marks.low, given[tp] ?? marks.low)
                ends[tp] = marks.high
                held += max(0, marks.high - marks.low)
            }
        }
        if let since {
            let sought = starts.filter { given[$0.key] == nil }
            let found = try await Self.seek(client, configuration, since: since, lows: sought, ends: ends, timeout: timeout)
            starts.merge(found) { _, found in found }
        }
        try client.assign(starts)
        self.client = client
        self.follow = follow
        self.endOffsets = ends
        self.startOffsets = starts
        self.heldRecords = held
        self.positions = Mutex(starts)
    }

    /// Per partition of `lows` (partition → first offset held), the first offset stamped at or
    /// after `since`: the brokers' answers, checked and, where they cannot look up by time,
    /// searched for; the probes of every partition go out together, from a client of their own
    /// that fetches one record batch per partition, not a megabyte.
    private static func seek(
        _ client: RDKafkaClient, _ configuration: KafkaConfiguration, since: Date, lows: [KafkaTopicPartition: Int64],
        ends: [KafkaTopicPartition: Int64], timeout: Duration
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        // Never below 0: Kafka reads -1 and -2 as "latest" and "earliest", not as times.
        let milliseconds = max(0, Int64((since.timeIntervalSince1970 * 1000).rounded(.down)))
        let times = lows.mapValues { _ in milliseconds }
        let answers = try await offload { client.offsetsForTimes(times, timeout: timeout) }.get()
        var seeks: [KafkaTopicPartition: KafkaTimeSeek] = [:]
        for (partition, low) in lows {
            let reported = answers[partition] ?? (-1, nil)
            guard let answer = KafkaTimeSeek.Answer(offset: reported.offset, error: reported.error) else {
                throw .broker(
                    code: reported.error ?? .unknownPartition,
                    message: "offsets for time \(milliseconds) of \(partition): \(reported.error?.name ?? "no answer")")
            }
            seeks[partition] = KafkaTimeSeek(time: since, low: low, high: ends[partition] ?? low, answer: answer)
        }
        var prober: RDKafkaClient?
        defer { prober?.stopBackgroundWork() }
        while true {
            let probes = seeks.compactMapValues { seek -> Int64? in
                guard case .probe(let offset) = seek.step else { return nil }
                return offset
            }
            if probes.isEmpty { break }
            if prober == nil {
                var probing = configuration
                probing["max.partition.fetch.bytes"] = "1"
                // A fetch that found nothing new must not hold the next round's for long.
                probing["fetch.wait.max.ms"] = "5"
                prober = try RDKafkaClient(kind: .consumer, configuration: probing)
            }
            let probe = prober!
            let firsts = try await offload { probe.firstRecords(at: probes, ends: ends, timeout: timeout) }.get()
            for partition in probes.keys { seeks[partition]?.observe(firsts[partition] ?? nil) }
        }
        return seeks.mapValues { seek in
            guard case .start(let offset) = seek.step else { preconditionFailure("a seek ended while probing") }
            return offset
        }
    }

    /// Records in each partition's offset order (partitions interleave); ends when every
    /// partition is read to its end (unless following), the task is cancelled, or `close()`.
    public var records: Records { Records(reader: self) }

    /// Records that existed at creation and are not yet handed out.
    public var remaining: Int64 {
        positions.withLock { positions in
            endOffsets.reduce(0) { total, entry in total + max(0, entry.value - (positions[entry.key] ?? entry.value)) }
        }
    }

    /// True when every partition has been read to the end it had at creation.
    public var isAtEnd: Bool { remaining == 0 }

    /// The high watermark of every partition of `topics` this reader reads, as each leader
    /// reports it now (the blocking calls are offloaded; each may take `timeout`).
    ///
    /// - Throws: `.invalidArgument` naming a topic this reader does not read; the broker's
    ///   error, or `.timedOut` when a leader does not answer within `timeout`.
    public func highWatermarks(of topics: Set<String>, timeout: Duration) async throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let read = Set(startOffsets.keys.map(\.topic))
        if let unread = topics.subtracting(read).sorted().first {
            throw .invalidArgument(name: "topic", value: unread, reason: "this reader reads \(read.sorted().joined(separator: ", "))")
        }
        let client = self.client
        var marks: [KafkaTopicPartition: Int64] = [:]
        for partition in startOffsets.keys.sorted() where topics.contains(partition.topic) {
            marks[partition] = try await offload { client.watermarks(partition, timeout: timeout) }.get().high
        }
        return marks
    }

    /// Whether every partition of `marks` has been read up to its offset there (its next offset
    /// to read is at or past it); a partition ended by `finish` counts as read.
    public func hasRead(upTo marks: [KafkaTopicPartition: Int64]) -> Bool {
        let finished = self.finished.withLock { $0 }
        return positions.withLock { positions in
            marks.allSatisfy { partition, mark in finished.contains(partition) || (positions[partition] ?? 0) >= mark }
        }
    }

    /// Whether every partition of `topics` has been read up to the end its leader reports now
    /// (`highWatermarks(of:timeout:)`, `hasRead(upTo:)`): no record of them that exists now is
    /// still to come.
    ///
    /// - Throws: as `highWatermarks(of:timeout:)`.
    public func hasCaughtUp(on topics: Set<String>, timeout: Duration) async throws(KafkaError) -> Bool {
        hasRead(upTo: try await highWatermarks(of: topics, timeout: timeout))
    }

    /// Records handed out by `records` so far.
    public var recordsRead: Int { handedOut.load(ordering: .relaxed) }

    /// Ends `partition` early: none of its records are handed out from now on, and it counts as
    /// read to its end. For a caller that knows the rest is of no use to it (past a time).
    public func finish(_ partition: KafkaTopicPartition) {
        finished.withLock { _ = $0.insert(partition) }
        positions.withLock { positions in positions[partition] = max(positions[partition] ?? 0, endOffsets[partition] ?? 0) }
        try? client.pause([partition])
    }

    /// Stops fetching and ends `records`, also for a task waiting in it now. Safe to call twice.
    public func close() {
        closed.store(true, ordering: .relaxed)
        client.stopBackgroundWork()
        client.context.wakeup.signal()
    }

    func next() async throws(KafkaError) -> KafkaRecord? {
        while !Task.isCancelled, !closed.load(ordering: .relaxed) {
            if !follow && isAtEnd { return nil }
            switch client.pollConsumer() {
            case .record(let record):
                // A partition read to its end goes on fetching what was produced since; those
                // records are past the snapshot unless following.
                if !follow, record.offset >= endOffsets[record.topicPartition] ?? 0 { continue }
                if finished.withLock({ $0.contains(record.topicPartition) }) { continue }
                positions.withLock { $0[record.topicPartition] = record.offset + 1 }
                handedOut.add(1, ordering: .relaxed)
                return record
            case .error(let error, let fatal):
                if fatal { throw error }
                client.context.log(.warning, "reader: \(error)")
            case .endOfPartition(let partition, let next):
                if finished.withLock({ $0.contains(partition) }) { continue }
                positions.withLock { $0[partition] = max($0[partition] ?? next, next) }
            case .empty:
                await client.context.wakeup.wait()
            }
        }
        return nil
    }

    /// The records of a `KafkaTopicReader`. Iterate it from one task at a time.
    public struct Records: AsyncSequence, Sendable {
        public typealias Element = KafkaRecord
        public typealias Failure = KafkaError

        let reader: KafkaTopicReader

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }

        /// Pulls one record at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let reader: KafkaTopicReader

            public mutating func next() async throws(KafkaError) -> KafkaRecord? {
                try await reader.next()
            }
        }
    }
}
