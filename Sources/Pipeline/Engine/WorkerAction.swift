import Kafka
import Logging

/// What `WorkerMachine` asks its worker to do; the worker performs each in order and decides
/// nothing itself.
enum WorkerAction {
    /// Start this backend call and report its answer (`WorkerMachine.callFinished`).
    case startCall(CallJob)
    /// Send no more requests of these running calls (`SendGate`): their records were abandoned
    /// to another worker. Each still reports its answer (`.withdrawn` if it sent nothing more).
    case withdrawCalls([Int])
    /// Publish this request's exports, dead letter and outcome, then report how that ended
    /// (`WorkerMachine.published`).
    case publish(Publication)
    /// Store these offsets (the next offset to read, per partition) for the next commit.
    case storeOffsets([KafkaTopicPartition: Int64])
    /// Wake the machine (`WorkerMachine.timerFired`) at this instant; replaces the timer set before.
    case setTimer(ContinuousClock.Instant)
    /// Hold the reader's next record until `WorkerMachine.holdExpired` at this instant, or
    /// `releaseReads`.
    case holdReads(until: ContinuousClock.Instant)
    /// The hold ended: cancel its deadline and let the reader take its next record.
    case releaseReads
    /// Let a held reader go on without ending the hold: the partitions are paused, so no record
    /// comes, and the reader must go on serving rebalances.
    case wakeReader
    /// Pause fetching from these assigned partitions (the group membership is kept).
    case pausePartitions([KafkaTopicPartition])
    /// Resume fetching from these assigned partitions.
    case resumePartitions([KafkaTopicPartition])
    /// The drain `id` (`WorkerMachine.beginDrain`) ended: its condition holds (true), or it
    /// expired or the worker stopped (false).
    case drainEnded(id: Int, drained: Bool)
    /// A request's outcome was acknowledged this long after its record arrived: record it in the
    /// metrics (the machine's statistics have it already).
    case requestLatency(Duration)
    /// Log this line.
    case log(Logger.Level, String)
    /// The worker cannot go on (a record refused for good): stop it without a drain.
    case fail(PipelineWorkerError)
}
