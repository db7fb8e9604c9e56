import struct Foundation.Date

/// Where to start reading one partition so that every record stamped at or after `time` is read:
/// the decision behind `KafkaTopicReader`'s `since`, without any I/O.
///
/// The broker's offsets-for-times answer comes first. An offset is trusted. "None" (-1, on a
/// real broker: no record is stamped at or after the time) or an error saying the lookup is
/// unsupported is checked against the partition's last record: when that record is older than
/// `time` the answer holds and reading starts at the end; otherwise the broker cannot look up by
/// time (librdkafka's mock cluster answers -1 to every time) and a binary search over offsets
/// takes over, reading one record per probe: O(log n) probes.
///
/// The search finds an offset just after a record older than `time` whose successors are all at
/// or after it, which is exact when timestamps grow with offsets. Producers' clocks and batching
/// make them grow only roughly; a caller that allows for records up to M out of order asks for
/// `time` M earlier: no record older than that can then follow one that counts. A record without
/// a timestamp that a probe reads counts as at or after `time` (reading starts there or earlier);
/// one no probe reads is judged by its neighbours, as any record is.
public struct KafkaTimeSeek: Sendable, Equatable {
    /// The broker's answer for this partition.
    public enum Answer: Sendable, Equatable {
        /// The first offset stamped at or after the time.
        case offset(Int64)
        /// No record is stamped at or after the time (offset -1).
        case none
        /// The broker cannot look up by time (an unsupported-version or -feature error).
        case unsupported

        /// The answer librdkafka reported (an offset, -1, and the partition's error); nil for an
        /// error that says something else is wrong, to be reported.
        public init?(offset: Int64, error: KafkaErrorCode?) {
            if let error {
                guard Self.unsupportedErrors.contains(error) else { return nil }
                self = .unsupported
            } else {
                self = offset >= 0 ? .offset(offset) : .none
            }
        }

        /// The errors that say a broker cannot look up by time.
        static let unsupportedErrors: Set<KafkaErrorCode> = [.unsupportedVersion, .unsupportedForMessageFormat, .unsupportedFeature]
    }

    /// What to do next.
    public enum Step: Sendable, Equatable {
        /// Read the first record at or after this offset and report it with `observe`.
        case probe(Int64)
        /// Done: start reading at this offset.
        case start(Int64)
    }

    /// The time asked for.
    public let time: Date
    /// The next step; `observe` moves it on.
    public private(set) var step: Step
    /// Probes answered so far.
    public private(set) var probes = 0
    /// While searching: the smallest offset not yet known to precede `time`, and the smallest
    /// known to be at or after it (its first record is stamped at or after `time`, or there is none).
    private var searchLow: Int64
    private var searchHigh: Int64
    /// True until the last record was checked.
    private var checkingLast: Bool

    /// The decision for a partition holding offsets `low..<high`, given the broker's `answer`.
    public init(time: Date, low: Int64, high: Int64, answer: Answer) {
        self.time = time
        self.searchLow = low
        self.searchHigh = max(low, high)
        self.checkingLast = false
        guard high > low else {
            step = .start(low)
            return
        }
        switch answer {
        case .offset(let offset):
            step = .start(min(max(offset, low), high))
        case .none, .unsupported:
            checkingLast = true
            step = .probe(high - 1)
        }
    }

    /// Takes in the answer to the current probe: the first record at or after the probed offset
    /// (its offset and timestamp), or nil when there is none before the partition's end.
    public mutating func observe(_ first: (offset: Int64, timestamp: Date?)?) {
        guard case .probe(let probed) = step else { return }
        probes += 1
        let atOrAfter = first.map { record in record.timestamp.map { $0 >= time } ?? true } ?? true
        if checkingLast {
            checkingLast = false
            if let first, !atOrAfter {
                // The broker was right: the last record is older than the time.
                step = .start(max(searchHigh, first.offset + 1))
                return
            }
            if first != nil { searchHigh = probed }
        } else if atOrAfter {
            searchHigh = probed
        } else {
            // Every offset up to that record's has it as its first record: all older.
            searchLow = max(probed, first?.offset ?? probed) + 1
        }
        searchLow = min(searchLow, searchHigh)
        step = searchLow < searchHigh ? .probe(searchLow + (searchHigh - searchLow) / 2) : .start(searchHigh)
    }
}
