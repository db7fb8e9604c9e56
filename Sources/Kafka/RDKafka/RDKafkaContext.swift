import CRdKafka
import Foundation
import Synchronization

/// State shared between a client and the C callbacks librdkafka calls on its own threads.
///
/// librdkafka gets an unretained pointer to it as the configuration opaque; the owning
/// `RDKafkaClient` keeps it alive until after `rd_kafka_destroy` returns.
final class RDKafkaContext: Sendable {
    let logHandler: (@Sendable (KafkaLogLevel, String) -> Void)?
    /// The latest statistics JSON librdkafka emitted (`statistics.interval.ms`).
    let statistics = Mutex<String?>(nil)
    /// Woken whenever the client's event queue (consumer queue, or a producer's main queue) gets
    /// something to serve.
    let wakeup = RDKafkaWakeup()
    /// Rebalances the rebalance callback reported, and a record polled after them, waiting for the
    /// consumer to hand them out.
    let events = Mutex(RDKafkaEventQueue())
    /// Set once the rebalance callback assigned partitions (possibly none): the consumer has had
    /// an assignment from its group (see `RDKafkaClient.destroyMayAbort`).
    let assignmentServed = Atomic(false)
    /// While set, an assignment ends the poll that served it (`awaitFirstAssignment`).
    let yieldOnAssignment = Atomic(false)
    /// The latest error librdkafka's error callback reported that says the cluster refused the
    /// client while connecting (`KafkaErrorCode.refusesTheClient`): the cause of a request that
    /// then only timed out.
    let lastRefusal = Mutex<KafkaError?>(nil)

    init(logHandler: (@Sendable (KafkaLogLevel, String) -> Void)?) {
        self.logHandler = logHandler
    }

    /// Reports a message of the wrapper's own; without a handler it goes to stderr, as
    /// librdkafka's own lines do.
    func log(_ level: KafkaLogLevel, _ message: String) {
        if let logHandler {
            logHandler(level, message)
        } else {
            FileHandle.standardError.write(Data("%\(level.rawValue)|kafka| \(message)\n".utf8))
        }
    }

    /// Takes note of an error the error callback reported: kept when it is a refusal.
    func noteError(_ code: KafkaErrorCode, _ reason: String) {
        guard code.refusesTheClient, !Self.isLocalCredentialFailure(reason) else { return }
        lastRefusal.withLock { $0 = .broker(code: code, message: reason) }
    }

    /// True when librdkafka's `_AUTHENTICATION` reason says the client could not get its own
    /// credentials (an OAUTHBEARER token endpoint or Kerberos's kinit failing, often for a
    /// moment), not that the cluster refused the ones it showed: no refusal, so a first request
    /// that only times out stays an outage.
    static func isLocalCredentialFailure(_ reason: String) -> Bool {
        reason.contains("OAUTHBEARER token") || reason.contains("kinit")
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaContext? {
        guard let opaque else { return nil }
        return Unmanaged<RDKafkaContext>.fromOpaque(opaque).takeUnretainedValue()
    }

    static func from(handle: OpaquePointer?) -> RDKafkaContext? {
        guard let handle else { return nil }
        return from(rd_kafka_opaque(handle))
    }
}

/// A rebalance as the consumer reports it to its caller.
enum RDKafkaRebalance: Sendable {
    case assigned([KafkaTopicPartition])
    /// Partitions being taken away; `lost` when the group already gave them to someone else.
    case revoked([KafkaTopicPartition], lost: Bool, cooperative: Bool)
}
