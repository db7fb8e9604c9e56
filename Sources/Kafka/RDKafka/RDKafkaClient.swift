import CRdKafka
import Foundation
import Synchronization

/// Owns one `rd_kafka_t` handle and the context its callbacks see.
///
/// librdkafka handles are thread-safe; this type adds only lifetime management. Both kinds wait
/// on librdkafka's queue event (`rd_kafka_queue_cb_event_enable`), never on a thread of their
/// own: a producer's or admin client's main queue (delivery reports, errors, statistics) is
/// served by a task each time it fills, a consumer's queue by its reader. The handle is destroyed
/// when the last reference goes away, so no call can race with `rd_kafka_destroy`: on a thread
/// of its own, which the process's exit waits for (`RDKafkaClientRegistry`, `KafkaClients`).
///
/// librdkafka's termination rules (INTRODUCTION.md, "Termination"): a consumer is closed
/// (`KafkaConsumer.close`, else by `rd_kafka_destroy` itself) and a producer flushed
/// (`KafkaProducer.close`) by their owners; the queues this client holds are destroyed before
/// `rd_kafka_destroy`, which then joins every thread of the handle.
final class RDKafkaClient: @unchecked Sendable {
    enum Kind: Sendable {
        case producer, consumer
    }

    let handle: OpaquePointer
    let context: RDKafkaContext
    let kind: Kind
    /// The queue whose events wake the task that serves it: the consumer queue of a consumer,
    /// the main queue (delivery reports, errors, statistics) of a producer or admin client.
    private let eventQueue: OpaquePointer
    /// Serves a producer's main queue whenever it gets something (nil for a consumer).
    private let mainQueueServer = Mutex<Task<Void, Never>?>(nil)
    /// Set once `closeConsumer` ran: destroying the handle must not try to close it again, which
    /// would wait without limit if the close timed out.
    let closeAttempted = Mutex(false)
    /// Set once `subscribe` ran: the consumer joins its group.
    let subscribed = Atomic(false)
    /// Whether the consumer's configuration offers the cooperative-sticky assignor.
    private let offersCooperativeSticky: Bool
    /// This handle in the process's registry.
    private let registration: Int

    init(kind: Kind, configuration: KafkaConfiguration) throws(KafkaError) {
        // librdkafka has a consumer queue, the one a consumer waits on, only in a group.
        if kind == .consumer, configuration.properties["group.id", default: ""].isEmpty {
            throw .invalidConfiguration(property: "group.id", value: "", reason: "a consumer needs a group id")
        }
        let context = RDKafkaContext(logHandler: configuration.logHandler)
        // One configuration serves every client of a process: each kind gets only what it reads.
        let scoped = kind == .consumer ? configuration.forConsumer : configuration.forProducer
        let conf = try RDKafkaClient.makeConf(scoped, context: context, kind: kind)
        var errstr = [CChar](repeating: 0, count: 512)
        let type = kind == .consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER
        guard let handle = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw .clientCreation(reason: Self.text(errstr))
        }
        self.handle = handle
        self.context = context
        self.kind = kind
        offersCooperativeSticky = configuration.properties["partition.assignment.strategy", default: ""].contains("cooperative-sticky")
        registration = RDKafkaClientRegistry.shared.register(name: String(cString: rd_kafka_name(handle)))
        if kind == .consumer { rd_kafka_poll_set_consumer(handle) }
        eventQueue = kind == .consumer ? rd_kafka_queue_get_consumer(handle) : rd_kafka_queue_get_main(handle)
        // librdkafka calls this on its own thread when the queue goes from empty to not empty.
        rd_kafka_queue_cb_event_enable(
            eventQueue,
            { _, opaque in
                RDKafkaContext.from(opaque)?.wakeup.signal()
            }, Unmanaged.passUnretained(context).toOpaque())
        if kind == .producer {
            mainQueueServer.withLock {
                $0 = Task { [weak self, wakeup = context.wakeup] in
                    // `self` is held for one serve at a time, so dropping the client ends the task.
                    while !Task.isCancelled, self?.serveMainQueue() != nil { await wakeup.wait() }
                }
            }
        }
    }

    /// Serves what the main queue holds (delivery reports, errors, statistics) without waiting.
    func serveMainQueue() {
        rd_kafka_poll(handle, 0)
    }

    /// Stops serving the main queue and the queue wakeups; the handle stays valid until deinit.
    func stopBackgroundWork() {
        rd_kafka_queue_cb_event_enable(eventQueue, nil, nil)
        let server = mainQueueServer.withLock { server -> Task<Void, Never>? in
            defer { server = nil }
            return server
        }
        server?.cancel()
    }

    /// Whether librdkafka before 2.3.0 (whose `rd_kafka_version()` is below 0x020300ff) might
    /// abort in `rd_kafka_destroy` of this client: it asserts that the cooperative-sticky
    /// assignor has state, and that state is made only by the member's first assignment
    /// (confluentinc/librdkafka#4381, fixed in 2.3.0). So a group member that offers the
    /// assignor and was not seen to get an assignment (a rebalance callback assigning, possibly
    /// nothing) may have joined without one. Once it has had one, the state stays.
    var destroyMayAbort: Bool {
        Self.destroyAbortsWithoutAssignorState && kind == .consumer && offersCooperativeSticky && subscribed.load(ordering: .acquiring)
            && !context.assignmentServed.load(ordering: .acquiring)
    }

    /// librdkafka before 2.3.0 asserts in `rd_kafka_destroy` of a cooperative-sticky member
    /// that joined a group but got no assignment yet (#4381).
    static let destroyAbortsWithoutAssignorState = RDKafkaProcess.version < 0x0203_00ff

    deinit {
        stopBackgroundWork()
        let registry = RDKafkaClientRegistry.shared
        if destroyMayAbort {
            // Never destroyed: librdkafka would abort the process (#4381). Its threads go on until
            // the process exits (`KafkaClients.exitProcess`, which runs no `atexit` handler that
            // could race with them) and call back into `context`, which must outlive them.
            context.log(
                .warning,
                "\(name) is not destroyed: it joined its group without ever getting an assignment, and librdkafka \(RDKafkaVersion.string) (before 2.3.0) would abort destroying it (librdkafka#4381); its threads end with the process"
            )
            _ = Unmanaged.passRetained(context)
            registry.kept(registration)
            if !closeAttempted.withLock({ $0 }) {
                // Never closed by its owner: it leaves the group now, so that it holds no
                // partitions while its threads run on.
                nonisolated(unsafe) let handle = handle
                let context = context
                Thread.start(named: "rdk-leave") { _ = RDKafkaClient.closeConsumer(handle, context: context, timeoutMilliseconds: 10_000) }
            }
            return
        }
        rd_kafka_queue_destroy(eventQueue)
        // rd_kafka_destroy joins librdkafka's threads, which after the cluster went away can take
        // up to `socket.timeout.ms`. It runs on a thread of its own, so that no Swift concurrency
        // thread, and no Dispatch worker that blocking calls need, waits for it; the process's
        // exit waits for it instead (`KafkaClients.awaitDestroyed`). `context` lives until it
        // returns, so callbacks never see it freed.
        nonisolated(unsafe) let handle = handle
        let context = context
        let flags = closeAttempted.withLock { $0 } ? RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE : 0
        // A consumer dropped without a close is closed by rd_kafka_destroy itself, whose revoke
        // waits for an unassign: nobody will ask for the next event, so the rebalance callback
        // carries revocations out at once, as while closing.
        if flags == 0 { context.events.withLock { $0.closing = true } }
        let registration = registration
        Thread.start(named: "rdk-destroy") {
            rd_kafka_destroy_flags(handle, flags)
            withExtendedLifetime(context) {}
            registry.destroyed(registration)
        }
    }

    /// The broker name librdkafka gave this client (`rdkafka#producer-1`).
    var name: String { String(cString: rd_kafka_name(handle)) }

    /// The fatal error that ended this client, if any.
    func fatalClientError() -> KafkaError? {
        var errstr = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(handle, &errstr, errstr.count)
        guard !RDKafkaErrors.isSuccess(code) else { return nil }
        return RDKafkaErrors.error(code, Self.text(errstr))
    }

    private static func makeConf(
        _ configuration: KafkaConfiguration, context: RDKafkaContext, kind: Kind
    ) throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        for (key, value) in configuration.properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                let reason = Self.text(errstr)
                throw .refused(property: key, value: value, reason: reason)
            }
        }
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        if configuration.logHandler != nil {
            rd_kafka_conf_set_log_cb(conf) { handle, level, facility, message in
                guard let context = RDKafkaContext.from(handle: handle) else { return }
                let text = "\(facility.map { String(cString: $0) } ?? "-"): \(message.map { String(cString: $0) } ?? "")"
                context.log(KafkaLogLevel(syslog: Int(level)), text)
            }
        }
        if let interval = configuration.properties["statistics.interval.ms"], interval != "0" {
            rd_kafka_conf_set_stats_cb(conf) { _, json, _, opaque in
                guard let json, let context = RDKafkaContext.from(opaque) else { return 0 }
                let text = String(cString: json)
                context.statistics.withLock { $0 = text }
                return 0  // librdkafka frees the JSON
            }
        }
        rd_kafka_conf_set_error_cb(conf) { _, code, reason, opaque in
            let context = RDKafkaContext.from(opaque)
            let text = reason.map { String(cString: $0) } ?? ""
            context?.noteError(KafkaErrorCode(rawValue: code), text)
            context?.log(.error, "\(RDKafkaErrors.name(of: code)): \(text)")
        }
        switch kind {
        case .producer:
            rd_kafka_conf_set_dr_msg_cb(conf) { _, message, _ in
                guard let message, let opaque = message.pointee._private else { return }
                RDKafkaDelivery.complete(opaque, message: message)
            }
        case .consumer:
            rd_kafka_conf_set_rebalance_cb(conf) { handle, code, partitions, opaque in
                guard let handle, let context = RDKafkaContext.from(opaque) else { return }
                RDKafkaRebalancer.handle(handle, code: code, partitions: partitions, context: context)
            }
        }
        return conf
    }
}
