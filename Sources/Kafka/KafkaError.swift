/// An error raised by the Kafka module.
///
/// Every case carries the value that caused it, so the message alone tells an operator what to fix.
public enum KafkaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// librdkafka refused a configuration property: its name is unknown or its value is invalid.
    /// Made by `refused(property:value:reason:)`, which keeps a value only where logs may show it.
    case invalidConfiguration(property: String, value: String, reason: String)
    /// A `key=value` assignment (as given to `-X`) could not be parsed.
    case malformedPropertyAssignment(String)
    /// A line of a properties file (kcat's `-F`) is not `key=value`; names the file and line,
    /// never the line's text (it may hold a secret).
    case malformedPropertiesFile(file: String, line: Int, reason: String)
    /// An environment variable meant to hold a property names none (`IIDBATCH_KAFKA_` alone).
    case malformedPropertyVariable(name: String, reason: String)
    /// librdkafka could not create a client from an otherwise valid configuration.
    case clientCreation(reason: String)
    /// The broker or librdkafka reported an error, with librdkafka's code, symbolic name and text.
    case broker(code: KafkaErrorCode, message: String)
    /// The producer's local queue stayed full for longer than the producer's enqueue timeout.
    case queueFull(topic: String, waited: Duration)
    /// An operation did not finish within its timeout.
    case timedOut(operation: String, timeout: Duration)
    /// The client was already closed when `operation` was called.
    case closed(operation: String)
    /// The task waiting for `operation` was cancelled. For a send: the record may still be
    /// stored later, so treat it as not acknowledged (and send it again if it must arrive).
    case cancelled(operation: String)
    /// An argument was rejected before any call to librdkafka.
    case invalidArgument(name: String, value: String, reason: String)
    /// The embedded cluster could not do what was asked.
    case embedded(operation: String, reason: String)

    /// librdkafka's refusal of `property` set to `value` for `reason`, holding the value (in the
    /// case and in librdkafka's reason) only when `KafkaConfiguration.shown` shows it: a misspelt
    /// secret's name (`sasl.pasword`) is unknown to librdkafka and to the allow-list, so its
    /// value is never kept, printed or logged.
    public static func refused(property: String, value: String, reason: String) -> KafkaError {
        let shown = KafkaConfiguration.shown(property, value)
        guard shown != value, !value.isEmpty else { return .invalidConfiguration(property: property, value: value, reason: reason) }
        return .invalidConfiguration(property: property, value: shown, reason: reason.replacing(value, with: shown))
    }

    public var description: String {
        switch self {
        case .invalidConfiguration(let property, let value, let reason):
            return "invalid Kafka property \(property)=\(value): \(reason)"
        case .malformedPropertyAssignment(let text):
            return "malformed Kafka property '\(text)': expected key=value"
        case .malformedPropertiesFile(let file, let line, let reason):
            return "Kafka properties file \(file) line \(line): \(reason)"
        case .malformedPropertyVariable(let name, let reason):
            return "environment variable \(name): \(reason)"
        case .clientCreation(let reason):
            return "could not create Kafka client: \(reason)"
        case .broker(let code, let message):
            return "Kafka error \(code.name) (\(code.rawValue)): \(message)"
        case .queueFull(let topic, let waited):
            return "producer queue full for topic '\(topic)' after waiting \(waited)"
        case .timedOut(let operation, let timeout):
            return "Kafka \(operation) timed out after \(timeout)"
        case .closed(let operation):
            return "Kafka client is closed (during \(operation))"
        case .cancelled(let operation):
            return "Kafka \(operation) was cancelled before it completed"
        case .invalidArgument(let name, let value, let reason):
            return "invalid \(name) '\(value)': \(reason)"
        case .embedded(let operation, let reason):
            return "embedded Kafka \(operation) failed: \(reason)"
        }
    }

    /// True when a producer's send failed in a way no retry can fix: the record is too large for
    /// the client or the broker, the topic is unknown, invalid or forbidden, or the producer hit
    /// a fatal error. Timeouts, full queues and broker outages are not permanent.
    public var isPermanentForProducer: Bool {
        switch self {
        case .broker(let code, _): code.isPermanentForProducer
        case .invalidConfiguration, .malformedPropertyAssignment, .malformedPropertiesFile, .malformedPropertyVariable, .clientCreation, .invalidArgument: true
        case .queueFull, .timedOut, .closed, .cancelled, .embedded: false
        }
    }

    /// The librdkafka error code, for `.broker` errors.
    public var code: KafkaErrorCode? {
        if case .broker(let code, _) = self { return code }
        return nil
    }
}
