import CRdKafka

/// Carries one `send`'s continuation through librdkafka as the message opaque.
///
/// It is retained when the message is enqueued and released exactly once: by the delivery-report
/// callback, or by the producer itself when librdkafka refused the message.
final class RDKafkaDelivery: Sendable {
    enum Result: Sendable {
        case delivered(KafkaDeliveryReport)
        case failed(KafkaError)
        /// librdkafka's local queue was full; nothing was enqueued.
        case queueFull
    }

    private let continuation: CheckedContinuation<Result, Never>

    init(_ continuation: CheckedContinuation<Result, Never>) {
        self.continuation = continuation
    }

    /// Retains the box for librdkafka; balance with `complete` or `release(_:with:)`.
    func retainedOpaque() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    /// Called from the delivery-report callback on the poll thread.
    static func complete(_ opaque: UnsafeMutableRawPointer, message: UnsafePointer<rd_kafka_message_t>) {
        let box = Unmanaged<RDKafkaDelivery>.fromOpaque(opaque).takeRetainedValue()
        let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        if RDKafkaErrors.isSuccess(message.pointee.err) {
            box.continuation.resume(returning: .delivered(
                KafkaDeliveryReport(topic: topic, partition: message.pointee.partition, offset: message.pointee.offset)))
        } else {
            box.continuation.resume(returning: .failed(RDKafkaErrors.error(
                message.pointee.err, "delivery to \(topic) failed: \(RDKafkaErrors.text(of: message.pointee.err.rawValue))")))
        }
    }

    /// Releases a box librdkafka never took, resuming its continuation with `result`.
    static func release(_ opaque: UnsafeMutableRawPointer, with result: Result) {
        let box = Unmanaged<RDKafkaDelivery>.fromOpaque(opaque).takeRetainedValue()
        box.continuation.resume(returning: result)
    }
}
