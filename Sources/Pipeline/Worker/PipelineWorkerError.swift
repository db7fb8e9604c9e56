import Kafka

/// Why a worker stopped itself. `iidbatch run` exits non-zero when a worker ends with one. Its
/// description names a request by its `RequestID.shortForm(_:)`: a log line stays short.
public enum PipelineWorkerError: Error, Sendable, CustomStringConvertible {
    /// The consumer failed for good (a fatal librdkafka error).
    case consumer(topic: String, KafkaError)
    /// A request's outcome or dead letter was refused for good, in its smallest form too (an
    /// unknown or forbidden topic, a fatal producer): its offset can never be stored.
    case publish(topic: String, requestID: String, KafkaError)
    /// An outcome could not be written at all.
    case unpublishable(requestID: String, reason: String)

    public var description: String {
        switch self {
        case .consumer(let topic, let error): "consuming \(topic) failed: \(error)"
        case .publish(let topic, let requestID, let error):
            "publishing the outcome of request '\(RequestID.shortForm(requestID))' to \(topic) was refused: \(error) (fix the topic or the client's rights to it, then restart: the request is consumed again)"
        case .unpublishable(let requestID, let reason): "the outcome of request '\(RequestID.shortForm(requestID))' cannot be encoded: \(reason)"
        }
    }
}
