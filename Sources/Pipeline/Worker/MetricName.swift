/// The name of every metric iidbatch exports: the one place they are written, used by the worker,
/// the operations server, and the checks of the deploy files' alert rules and dashboard.
public enum MetricName: String, Sendable, CaseIterable {
    case recordsConsumed = "iidbatch_records_consumed_total"
    case requests = "iidbatch_requests_total"
    case items = "iidbatch_items_total"
    case callAttempts = "iidbatch_call_attempts_total"
    case callDuration = "iidbatch_call_duration_seconds"
    case requestDuration = "iidbatch_request_duration_seconds"
    case itemRetries = "iidbatch_item_retries_total"
    case deadLetters = "iidbatch_dead_letters_total"
    case itemsInFlight = "iidbatch_items_in_flight"
    case pausedPartitions = "iidbatch_paused_partitions"
    case circuitBreakerOpen = "iidbatch_circuit_breaker_open"
    case rate = "iidbatch_rate_calls_per_second"
    /// Consumer lag per owned partition, in kafka_exporter's shape.
    case consumerGroupLag = "kafka_consumergroup_lag"
}
