import CRdKafka
import Synchronization

/// Carries one record's completion through librdkafka as the message opaque.
///
/// It is retained when the message is enqueued and released exactly once: by the delivery-report
/// callback (which calls the completion), or by the producer itself when librdkafka refused the
/// message (`release(_:with:)` calls it, `discard(_:)` does not). The completion runs at most once,
/// whoever finishes the box first (the report, or `RDKafkaDeliveries.failAll` at close).
final class RDKafkaDelivery: Sendable {
    enum Result: Sendable {
        case delivered(KafkaDeliveryReport)
        case failed(KafkaError)
        /// librdkafka's local queue was full; nothing was enqueued.
        case queueFull
    }

    private let completion: @Sendable (Result) -> Void
    private let finished = Atomic<Bool>(false)
    private let finishHook = Mutex<(@Sendable () -> Void)?>(nil)

    /// A box that calls `completion` once: in the task serving the main queue, for a delivery report.
    init(_ completion: @escaping @Sendable (Result) -> Void) {
        self.completion = completion
    }

    /// Runs once the completion has run (to unregister the box).
    var onFinish: (@Sendable () -> Void)? {
        get { finishHook.withLock { $0 } }
        set { finishHook.withLock { $0 = newValue } }
    }

    /// Completes the box with `result`, unless it was completed already.
    func finish(_ result: Result) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        completion(result)
        onFinish?()
    }

    /// Retains the box for librdkafka; balance with `complete`, `release(_:with:)` or `discard(_:)`.
    func retainedOpaque() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    /// Called from the delivery-report callback, inside `rd_kafka_poll`.
    static func complete(_ opaque: UnsafeMutableRawPointer, message: UnsafePointer<rd_kafka_message_t>) {
        let box = Unmanaged<RDKafkaDelivery>.fromOpaque(opaque).takeRetainedValue()
        let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        if RDKafkaErrors.isSuccess(message.pointee.err) {
            box.finish(
                .delivered(
                    KafkaDeliveryReport(topic: topic, partition: message.pointee.partition, offset: message.pointee.offset)))
        } else {
            box.finish(
                .failed(
                    RDKafkaErrors.error(
                        message.pointee.err, "delivery to \(topic) failed: \(RDKafkaErrors.text(of: message.pointee.err.rawValue))")))
        }
    }

    /// Releases a box librdkafka never took, completing it with `result`.
    static func release(_ opaque: UnsafeMutableRawPointer, with result: Result) {
        Unmanaged<RDKafkaDelivery>.fromOpaque(opaque).takeRetainedValue().finish(result)
    }

    /// Releases a box librdkafka never took, without completing it.
    static func discard(_ opaque: UnsafeMutableRawPointer) {
        let box = Unmanaged<RDKafkaDelivery>.fromOpaque(opaque).takeRetainedValue()
        box.finished.store(true, ordering: .releasing)
        box.onFinish?()
    }
}
