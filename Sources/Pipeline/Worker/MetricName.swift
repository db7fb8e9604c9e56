/// The name of every metric iidbatch exports: the one place they are written, used by the worker,
/// the operations server, and the checks of the deploy files' alert rules and dashboard.
public enum MetricName: String, Sendable, CaseIterable {
    /// Records read from the request topics.
    case recordsConsumed = "iidbatch_records_consumed_total"
    /// Outcomes acknowledged, by `op` and `status`.
    case requests = "iidbatch_requests_total"
    /// Items by `op` and final `code`; they add up to the outcomes' counts.
    case items = "iidbatch_items_total"
    /// Backend call attempts by `api` and HTTP `status` (`none` without an answer).
    case callAttempts = "iidbatch_call_attempts_total"
    /// Backend call latency by `api`.
    case callDuration = "iidbatch_call_duration_seconds"
    /// Request received → outcome acknowledged.
    case requestDuration = "iidbatch_request_duration_seconds"
    /// Items started again after a failed attempt.
    case itemRetries = "iidbatch_item_retries_total"
    /// Dead letters acknowledged, by `kind`.
    case deadLetters = "iidbatch_dead_letters_total"
    /// Items held until their outcomes are acknowledged.
    case itemsInFlight = "iidbatch_items_in_flight"
    /// Partitions paused (backpressure, breaker, stopping).
    case pausedPartitions = "iidbatch_paused_partitions"
    /// 1 while the circuit breaker is open, else 0.
    case circuitBreakerOpen = "iidbatch_circuit_breaker_open"
    /// The adaptive rate by `api`, calls per second.
    case rate = "iidbatch_rate_calls_per_second"
    /// 1 while an operator has paused the pipeline (`iidbatch control pause`), else 0.
    case controlPaused = "iidbatch_control_paused"
    /// The version of each control document in force, by `scope` (the pipeline's name or `*`).
    case controlVersion = "iidbatch_control_version"
    /// Consumer lag per owned partition, in kafka_exporter's shape.
    case consumerGroupLag = "kafka_consumergroup_lag"
}
