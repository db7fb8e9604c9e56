/// The librdkafka clients of this process (producers, consumers, admin clients, topic readers,
/// embedded clusters), for the process's exit path.
///
/// A client's handle is destroyed (librdkafka's destroy, which joins its threads) on a thread of
/// its own once its last reference goes away, after the client was closed (consumer) or
/// flushed (producer) by its owner. librdkafka's threads must all have ended before the process
/// exits: `exit()` runs `atexit` handlers and static destructors while they still run, and from
/// librdkafka 2.13.2 on OpenSSL's cleanup then frees what their exit frees too (a double free).
/// So the exit path waits for the destroys (`awaitDestroyed`), then ends the process without
/// `atexit` handlers (`exitProcess`).
public enum KafkaClients {
    /// librdkafka threads running now in this process; 0 once every client was destroyed.
    public static var threadCount: Int { RDKafkaProcess.threadCount }

    /// Waits until every client made so far in this process was destroyed (or kept on purpose,
    /// see `KafkaClientsAtExit.kept`), woken by each destroy; gives up after `timeout`, for a
    /// client still referenced or a destroy that hangs (librdkafka may wait for a broker that
    /// went away).
    public static func awaitDestroyed(within timeout: Duration) async -> KafkaClientsAtExit {
        let registry = RDKafkaClientRegistry.shared
        await registry.waitUntilSettled(deadline: .now + timeout)
        return KafkaClientsAtExit(live: registry.live, kept: registry.kept, threads: RDKafkaProcess.threadCount)
    }

    /// Has the process's allocator keep the large buffers consumers churn through (librdkafka's
    /// fetch responses, the records copied out of them) instead of mapping each afresh; see
    /// `RDKafkaProcess.keepLargeBuffers`. Call once, first thing, in a process that consumes
    /// large records. True when it changed the allocator's settings.
    @discardableResult
    public static func keepLargeBuffers(environment: [String: String]) -> Bool {
        RDKafkaProcess.keepLargeBuffers(environment: environment)
    }

    /// Ends the process with `status` at once: flushes stdout and stderr, then `_exit`s, so that
    /// no `atexit` handler runs while a librdkafka thread may still run.
    public static func exitProcess(_ status: Int32) -> Never {
        RDKafkaProcess.exit(status)
    }
}
