/// The name of every metric iidbatch exports, with its `# HELP` text and (for histograms) its
/// buckets: the one place they are written, used by the worker, the operations server, and the
/// checks of the deploy files' alert rules and dashboard.
package enum MetricName: String, Sendable, CaseIterable {
    /// Counter; labels `pipeline`.
    case recordsConsumed = "iidbatch_records_consumed_total"
    /// Counter; labels `pipeline`, `op`, `status`.
    case requests = "iidbatch_requests_total"
    /// Counter; labels `pipeline`, `op`, `code`. Each pipeline's success codes of each op it takes
    /// exist from the worker's start, at 0.
    case items = "iidbatch_items_total"
    /// Counter; labels `pipeline`, `api`, `status`.
    case callAttempts = "iidbatch_call_attempts_total"
    /// Counter; labels `pipeline`, `api`; each API the pipeline calls exists from the start, at 0.
    case throttledAttempts = "iidbatch_throttled_attempts_total"
    /// Histogram; labels `pipeline`, `api`.
    case callDuration = "iidbatch_call_duration_seconds"
    /// Histogram; labels `pipeline`; buckets up to 30 minutes.
    case requestDuration = "iidbatch_request_duration_seconds"
    /// Counter; labels `pipeline`.
    case itemRetries = "iidbatch_item_retries_total"
    /// Counter; labels `pipeline`, `kind`; every kind exists from the worker's start, at 0.
    case deadLetters = "iidbatch_dead_letters_total"
    /// Counter; labels `pipeline`, `batch`, `status`; only the `RecentBatches.limit` batches
    /// active last (an older batch's series are removed).
    case batchRequests = "iidbatch_batch_requests_total"
    /// Counter; labels `pipeline`, `batch`; as `batchRequests`.
    case batchItems = "iidbatch_batch_items_total"
    /// Gauge; labels `pipeline`.
    case itemsInFlight = "iidbatch_items_in_flight"
    /// Gauge; labels `pipeline`.
    case pausedPartitions = "iidbatch_paused_partitions"
    /// Gauge (0 or 1); labels `pipeline`.
    case circuitBreakerOpen = "iidbatch_circuit_breaker_open"
    /// Gauge; labels `pipeline`, `api`.
    case rate = "iidbatch_rate_calls_per_second"
    /// Gauge; labels `pipeline`, `api`.
    case concurrencyLimit = "iidbatch_concurrency_limit"
    /// Gauge (0 or 1); labels `pipeline`.
    case controlPaused = "iidbatch_control_paused"
    /// Gauge; labels `pipeline`, `scope`.
    case controlVersion = "iidbatch_control_version"
    /// Gauge; labels `consumergroup`, `topic`, `partition` (kafka_exporter's shape).
    case consumerGroupLag = "kafka_consumergroup_lag"
    /// Gauge, always 1; labels `version`, `commit`.
    case buildInfo = "iidbatch_build_info"
    /// Counter (Prometheus clients' process metrics, read from /proc at scrape time on Linux).
    case processCPUSeconds = "process_cpu_seconds_total"
    /// Gauge (Prometheus clients' process metrics).
    case processResidentMemory = "process_resident_memory_bytes"
    /// Gauge (Prometheus clients' process metrics).
    case processVirtualMemory = "process_virtual_memory_bytes"
    /// Gauge (Prometheus clients' process metrics).
    case processOpenFDs = "process_open_fds"
    /// Gauge (Prometheus clients' process metrics).
    case processMaxFDs = "process_max_fds"
    /// Gauge (Prometheus clients' process metrics).
    case processStartTime = "process_start_time_seconds"

    /// The `# HELP` text /metrics shows: what the series means, one line, never empty.
    public var help: String {
        switch self {
        case .recordsConsumed: "Records read from the pipeline's request topic."
        case .requests: "Outcomes acknowledged, by op and status (succeeded, partial, failed, rejected)."
        case .items: "Items by op and final code (OK, ALREADY_ABSENT, NOT_FOUND, ...); they add up to the outcomes' counts."
        case .callAttempts: "Backend call attempts by API and HTTP status (none: no answer; withdrawn: not sent, its records handed to another worker)."
        case .throttledAttempts: "Backend call attempts answered with throttling (HTTP 429 or an item's RESOURCE_EXHAUSTED), by API."
        case .callDuration: "Backend call latency by API, seconds."
        case .requestDuration: "Request received to its outcome acknowledged, seconds."
        case .itemRetries: "Items started again after a failed attempt."
        case .deadLetters: "Dead letters acknowledged, by kind (retry-exhausted, undecodable, duplicate-in-flight)."
        case .batchRequests:
            "Outcomes acknowledged per batch and status, for the \(RecentBatches.limit) batches this worker saw last (older ones' series are removed)."
        case .batchItems: "Items of the outcomes acknowledged per batch, for the \(RecentBatches.limit) batches this worker saw last."
        case .itemsInFlight: "Items held until their outcomes are acknowledged."
        case .pausedPartitions: "Partitions paused (backpressure, circuit breaker, operator pause, stopping)."
        case .circuitBreakerOpen: "1 while the circuit breaker is open (the backend refuses or fails every call), else 0."
        case .rate: "The adaptive rate by API, calls per second (while unpaced: the rate-limit, or 0 without one)."
        case .concurrencyLimit: "The calls in flight each API may have now: its rate times its latency, with headroom, up to concurrency."
        case .controlPaused: "1 while an operator has paused the pipeline (iidbatch control pause), else 0."
        case .controlVersion: "The version of each control document in force, by scope (the pipeline's name or *); 0 when reset to the file."
        case .consumerGroupLag: "Consumer lag of each partition this process owns, records (kafka_exporter's shape)."
        case .buildInfo: "Always 1; its labels name the running binary's version and commit."
        case .processCPUSeconds: "Total user and system CPU time spent by the process, seconds."
        case .processResidentMemory: "Resident memory size of the process, bytes."
        case .processVirtualMemory: "Virtual memory size of the process, bytes."
        case .processOpenFDs: "Number of open file descriptors of the process."
        case .processMaxFDs: "Maximum number of open file descriptors of the process (its soft limit)."
        case .processStartTime: "Start time of the process since the Unix epoch, seconds."
        }
    }

    /// The upper bounds of a histogram's buckets (nil: not a histogram of its own buckets).
    /// Request durations reach 30 minutes: a backlog, retries with backoff and a circuit breaker's
    /// pauses all count, and the demo's p99 alone is about 21 s. Call durations reach the client's
    /// 30 s timeout.
    public var buckets: [Duration]? {
        switch self {
        case .requestDuration:
            [
                .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300),
                .seconds(600), .seconds(1200), .seconds(1800),
            ]
        case .callDuration:
            [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
                .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
            ]
        default: nil
        }
    }
}
