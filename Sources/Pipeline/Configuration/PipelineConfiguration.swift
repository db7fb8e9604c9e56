import InstanceAPI

/// One pipeline's settings: where its requests come from, where outcomes and dead letters go,
/// and how its calls are batched, paced and retried. Read from `pipelines/*.yaml` by
/// `PipelineFile`; every field has a default fit for production except the topic names.
public struct PipelineConfiguration: Sendable, Hashable {
    /// A name for logs and summaries (the file's base name).
    public var name: String
    /// The topic requests are consumed from.
    public var requestTopic: String
    /// The consumer group of the workers.
    public var group: String
    /// Where outcomes are published.
    public var outcomeTopic: String
    /// Where dead letters (and undecodable records, byte for byte) go.
    public var deadLetterTopic: String
    /// Where `groups.export` writes each group it read (`GroupExport`, keyed by group): a topic
    /// meant to be compacted, so that the latest export of every group stays.
    public var exportTopic: String
    /// The ops this pipeline takes (nil: any). A request of another op is rejected, and the
    /// operator commands send each op to the request topic of the pipeline that lists it.
    public var ops: Set<RequestOp>?
    /// Items per call, capped by each API's limit.
    public var maxItemsPerCall: Int
    /// How long a partial call may wait for more items before it is sent anyway.
    public var linger: Duration
    /// The most backend calls in flight at once (`concurrency`): the cap of each API's
    /// `ConcurrencyLimit`, which follows its rate and latency, and of all APIs together.
    public var concurrency: Int
    /// The most backend calls per second, per API (`rate-limit`): the adaptive rate's ceiling; nil
    /// for none.
    public var callsPerSecond: Double?
    /// How the rate per API is found under the ceiling (`adaptive-rate`): unpaced until the API
    /// first throttles unless `start` is given; its `ceiling` is ignored in favour of
    /// `callsPerSecond`.
    public var adaptiveRate = AdaptiveRate.Settings()
    /// Retries of retryable items.
    public var retry: RetryPolicy
    /// The Firebase project its calls go to (`project:`, checked by `ProjectID`); nil: the
    /// process's (`ProjectChoice.resolve`: `--project`, `$GOOGLE_CLOUD_PROJECT`, the credentials').
    public var project: String?
    /// The project number the device-group API wants as its `project_id` header (`sender-id:`);
    /// nil: the project id is sent.
    public var senderID: String?
    /// Topic pipelines: the IID batch API or FCM v1 per token.
    public var topicBackend: TopicBackend
    /// Items held in flight before partitions are paused.
    public var maxInFlightItems: Int
    /// Record bytes (values and keys) held in flight before partitions are paused, as
    /// `maxInFlightItems` counts items: a request's items point into its record, so a few padded
    /// records can hold more memory than many items.
    public var maxInFlightBytes: Int
    /// Records larger than this are rejected unread.
    public var maxRecordBytes: Int
    /// The largest outcome the pipeline publishes; a request whose outcome could be larger
    /// (`OutcomeSizeBound`) is rejected on arrival, saying how many items fit. Keep it below the
    /// outcome topic's `max.message.bytes` (Kafka's default is 1,048,588).
    public var maxOutcomeBytes: Int
    /// The live-overridable settings its file sets (the rest are built-in defaults), so that
    /// `ControlledSettings` can say where each value comes from.
    public var fileSettings: Set<ControlKey> = []
    /// How long a revoke or a stop waits for in-flight work before abandoning it.
    public var drainTimeout: Duration
    /// Call failures in a row that open the circuit breaker, and its first and longest pauses.
    public var breakerThreshold: Int
    /// The circuit breaker's first pause.
    public var breakerCooldown: Duration
    /// The circuit breaker's longest pause.
    public var breakerMaxCooldown: Duration

    /// A pipeline for `requestTopic`; the other topics and the group are derived from it.
    public init(
        name: String, requestTopic: String, group: String? = nil, outcomeTopic: String? = nil, deadLetterTopic: String? = nil, exportTopic: String? = nil,
        maxItemsPerCall: Int = RequestOp.largestCallLimit, linger: Duration = .milliseconds(50), concurrency: Int = 16, callsPerSecond: Double? = nil,
        retry: RetryPolicy = RetryPolicy(), topicBackend: TopicBackend = .iidBatch, maxInFlightItems: Int = 50_000,
        maxInFlightBytes: Int = 64 << 20, maxRecordBytes: Int = 1 << 20, maxOutcomeBytes: Int = 1_000_000, drainTimeout: Duration = .seconds(20),
        breakerThreshold: Int = 5, breakerCooldown: Duration = .seconds(1), breakerMaxCooldown: Duration = .seconds(30)
    ) {
        self.name = name
        self.requestTopic = requestTopic
        self.group = group ?? "iidbatch-" + requestTopic
        self.outcomeTopic = outcomeTopic ?? requestTopic + ".outcomes"
        self.deadLetterTopic = deadLetterTopic ?? requestTopic + ".dead-letters"
        self.exportTopic = exportTopic ?? requestTopic + ".group-exports"
        self.maxItemsPerCall = maxItemsPerCall
        self.linger = linger
        self.concurrency = concurrency
        self.callsPerSecond = callsPerSecond
        self.retry = retry
        self.topicBackend = topicBackend
        self.maxInFlightItems = maxInFlightItems
        self.maxInFlightBytes = maxInFlightBytes
        self.maxRecordBytes = maxRecordBytes
        self.maxOutcomeBytes = maxOutcomeBytes
        self.drainTimeout = drainTimeout
        self.breakerThreshold = breakerThreshold
        self.breakerCooldown = breakerCooldown
        self.breakerMaxCooldown = breakerMaxCooldown
    }

    /// The adaptive rate's settings, with `rate-limit` as the ceiling.
    public var rateSettings: AdaptiveRate.Settings {
        var settings = adaptiveRate
        settings.ceiling = callsPerSecond
        return settings
    }

    /// The APIs this pipeline calls that Google turns down on `BackendAPI.turndownDate`, sorted by
    /// name (for a pipeline that takes any op: those of every op).
    public var turnedDownAPIs: [BackendAPI] {
        apis.filter(\.isTurnedDown).sorted { $0.rawValue < $1.rawValue }
    }

    /// The APIs this pipeline calls whose calls name no project (`BackendAPI.namesProject`),
    /// sorted by name: they act on the credentials' project, whatever project the pipeline chose.
    public var projectlessAPIs: [BackendAPI] {
        apis.filter { !$0.namesProject }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The ops this pipeline takes: those its file lists, or every op.
    public var takenOps: [RequestOp] { ops.map { RequestOp.allCases.filter($0.contains) } ?? RequestOp.allCases }

    /// The backend APIs this pipeline's ops call.
    public var apis: Set<BackendAPI> { Set(takenOps.map { $0.api(on: topicBackend) }) }

    /// Whether this pipeline takes requests of `op`.
    public func takes(_ op: RequestOp) -> Bool { ops?.contains(op) ?? true }

    /// The pipeline of `pipelines` whose file lists `op` (one that takes any op when none lists it).
    public static func pipeline(for op: RequestOp, in pipelines: [PipelineConfiguration]) -> PipelineConfiguration? {
        pipelines.first { $0.ops?.contains(op) == true } ?? pipelines.first { $0.ops == nil }
    }

    /// `max-in-flight-bytes`' range: from 1 MiB (a request needs its record held) to 1 TiB.
    public static let maxInFlightBytesRange = (1 << 20)...(1 << 40)

    /// The most bytes a dead letter takes as the producer counts them (key, value and headers): a
    /// record of up to `maxRecordBytes` with a key of up to `deadLetterKeyBytes` and its headers
    /// (`DeadLetterHeader.maxBytes`). A larger one is published as a stub with the record's
    /// coordinates (`DeadLetter.stub(of:)`).
    public var maxDeadLetterBytes: Int { maxRecordBytes + Self.deadLetterKeyBytes + DeadLetterHeader.maxBytes }

    /// The key a dead letter of a full-size record may carry whole.
    public static let deadLetterKeyBytes = 8_192

    /// Producer settings the pipeline needs unless the operator set them: `message.max.bytes` large
    /// enough for its largest outcome and for a dead letter of `maxDeadLetterBytes` (the broker's
    /// topic limits still apply: past them an outcome loses its item lists and a dead letter
    /// becomes a stub).
    public var producerDefaults: [String: String] {
        Self.producerDefaults(for: [self])
    }

    /// Consumer settings of this pipeline's worker: librdkafka's read-ahead held to 64 MiB of
    /// records (librdkafka's default), or four of the largest records, and to a fifth of
    /// `maxInFlightItems` records a partition (at least 1,000; 100,000 by default), so that a
    /// deep backlog costs the worker a fixed amount of memory; what it holds beyond that is
    /// bounded by `maxInFlightItems`. The count matters for small records: librdkafka keeps a few
    /// hundred bytes for each beyond its payload, which the byte bound does not count.
    ///
    /// The byte bound trades memory for throughput: once the read-ahead is full, librdkafka 2.0
    /// fetches again only when its broker thread next looks, up to a second later, and a worker
    /// that has drained the read-ahead by then waits. `bench worker`, topics-1000 with a
    /// 5M-item backlog: 16 MiB gave 919k items/s at 76 MiB peak RSS, 32 MiB 1.0–1.28M at 89–116
    /// MiB, 64 MiB 1.26M at 157 MiB; with the shipped topic file (real-size 170 KB records, 1M
    /// items, iid-batch) 32 MiB held the worker to 297k items/s (at 178 MiB), 64 MiB 536–548k
    /// (at 206–233 MiB).
    public var consumerDefaults: [String: String] {
        [
            "queued.max.messages.kbytes": "\(max(65_536, 4 * maxRecordBytes / 1_024))",
            "queued.min.messages": "\(max(1_000, maxInFlightItems / 5))",
        ]
    }

    /// How long the worker's producer gathers outcomes, dead letters and exports into one produce
    /// request (librdkafka's `linger.ms`, 5 ms by default). A worker publishes an outcome per
    /// request, a few hundred a second when requests are small: at 5 ms nearly every outcome was a
    /// produce request of its own, with its wakes of librdkafka's broker thread and its
    /// acknowledgement. A request publishes its exports (together), then its dead letter, then its
    /// outcome (`OutcomePublisher`), so the linger adds up to itself to its latency for each of
    /// those steps, and the request holds its place under `max-in-flight-items` that much longer.
    /// Measured (release, shipped files, one event loop): `bench worker --shapes deletions-3` (the
    /// shipped 500/s, one outcome per 3 calls) 196 µs of worker CPU per call at 5 ms, 183–185 at 20
    /// ms, 189–192 at 50 ms; topics-1000 at 50 ms of backend latency, where the in-flight bound
    /// holds, 420k items/s at 5 and 20 ms but 349–353k at 50 ms. (Before the worker ran on one
    /// loop: 201–213 at 5 ms, 171–189 at 50.) The operator's `linger.ms` wins.
    public static let outcomeLinger = "20"

    /// Producer settings for one producer shared by `pipelines`: large enough for each of them,
    /// lingering `outcomeLinger` ms.
    public static func producerDefaults(for pipelines: [PipelineConfiguration]) -> [String: String] {
        // 64 KiB past the larger: a dead letter's key and headers (`maxDeadLetterBytes`), an
        // outcome's key, and librdkafka's few dozen bytes per record.
        let largest = pipelines.map { max($0.maxRecordBytes, $0.maxOutcomeBytes) + 65_536 }.max() ?? 0
        return ["message.max.bytes": "\(max(1_000_000, largest))", "linger.ms": outcomeLinger]
    }

    /// Items one call of `op` carries under this pipeline: the configured maximum within the
    /// limit of the API the op calls on this pipeline's backend (`RequestOp.itemsPerCall(on:)`),
    /// and at least one.
    public func itemsPerCall(_ op: RequestOp) -> Int {
        max(1, min(op.itemsPerCall(on: topicBackend), maxItemsPerCall))
    }
}
