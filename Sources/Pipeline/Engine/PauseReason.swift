/// Why a worker's consumption is paused (`WorkerMachine` pauses the assigned partitions while
/// any reason holds, and resumes them when none does).
enum PauseReason: Hashable, Sendable {
    /// Reads were held at the in-flight bound for `ReadGate.holdLimit`.
    case backpressure
    /// The circuit breaker is open while other work waits.
    case breaker
    /// The worker is stopping.
    case stopping
    /// An operator paused the pipeline.
    case control
}
