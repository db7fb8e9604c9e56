import Synchronization

/// A Kafka producer whose `send` returns only once the broker acknowledged the record.
///
/// Idempotent by default (`enable.idempotence=true`): librdkafka's retries never duplicate or
/// reorder records within a partition. Records sent one after another to one partition are stored
/// in that order. The local queue is bounded by librdkafka's `queue.buffering.max.messages` and
/// `queue.buffering.max.kbytes`; when it is full, `send` waits for room up to `enqueueTimeout` and
/// then throws `KafkaError.queueFull`. Safe to share between tasks.
public final class KafkaProducer: Sendable {
    private enum State {
        case open
        case closed
    }

    /// Where one `send` is, for its cancellation handler.
    private enum PendingSend {
        case waiting
        /// The record's box was made (and is being, or was, handed to librdkafka).
        case enqueuing(RDKafkaDelivery)
        case cancelled
    }

    private let client: RDKafkaClient
    private let state = Mutex(State.open)
    private let deliveries = RDKafkaDeliveries()
    /// How long `send` waits for room in a full local queue before it throws.
    public let enqueueTimeout: Duration

    /// Creates a producer. Unknown or invalid properties throw `KafkaError.invalidConfiguration`.
    public init(configuration: KafkaConfiguration, enqueueTimeout: Duration = .seconds(60)) throws(KafkaError) {
        self.client = try RDKafkaClient(
            kind: .producer, configuration: configuration.withDefaults(["enable.idempotence": "true"]))
        self.enqueueTimeout = enqueueTimeout
    }

    /// Sends one record and waits for the broker's acknowledgement.
    ///
    /// Cancelling the calling task ends the wait at once with `.cancelled`. The record may still
    /// be stored later (librdkafka keeps it until it is delivered or `message.timeout.ms` ends):
    /// a cancelled send is not acknowledged, never known to have failed either.
    ///
    /// - Parameter partition: a fixed partition, or nil to let the partitioner hash the key.
    /// - Returns: where the broker stored the record.
    /// - Throws: the broker's error after librdkafka's retries (bounded by `message.timeout.ms`),
    ///   `.queueFull` after `enqueueTimeout`, `.cancelled`, or `.closed`.
    public func send(
        topic: String, key: [UInt8]?, value: [UInt8]?, headers: [KafkaHeader] = [], partition: Int32? = nil
    ) async throws(KafkaError) -> KafkaDeliveryReport {
        let clock = ContinuousClock()
        let started = clock.now
        while true {
            guard state.withLock({ $0 == .open }) else { throw .closed(operation: "send to \(topic)") }
            let cancelled = RDKafkaDelivery.Result.failed(.cancelled(operation: "send to \(topic)"))
            // The record's box, once made; `.cancelled` once the task was cancelled.
            let wait = Mutex(PendingSend.waiting)
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<RDKafkaDelivery.Result, Never>) in
                    guard let box = deliveries.make({ continuation.resume(returning: $0) }) else {
                        // The producer closed after the check above: nothing would report it.
                        continuation.resume(returning: .failed(.closed(operation: "send to \(topic)")))
                        return
                    }
                    let opaque = box.retainedOpaque()
                    let cancelledFirst = wait.withLock { wait -> Bool in
                        if case .cancelled = wait { return true }
                        wait = .enqueuing(box)
                        return false
                    }
                    guard !cancelledFirst else {
                        // Cancelled before librdkafka got it: nothing is sent.
                        RDKafkaDelivery.release(opaque, with: cancelled)
                        return
                    }
                    switch client.produce(
                        topic: topic, partition: partition, key: key, value: value, headers: headers, opaque: opaque)
                    {
                    case .enqueued: break
                    case .queueFull: RDKafkaDelivery.release(opaque, with: .queueFull)
                    case .failed(let error): RDKafkaDelivery.release(opaque, with: .failed(error))
                    }
                }
            } onCancel: {
                let box = wait.withLock { wait -> RDKafkaDelivery? in
                    defer { wait = .cancelled }
                    if case .enqueuing(let box) = wait { return box }
                    return nil
                }
                // The box completes once: librdkafka's report, if it comes later, changes nothing.
                box?.finish(cancelled)
            }
            switch result {
            case .delivered(let report):
                return report
            case .failed(let error):
                throw error
            case .queueFull:
                let waited = clock.now - started
                if waited >= enqueueTimeout { throw .queueFull(topic: topic, waited: waited) }
                do { try await Task.sleep(for: .milliseconds(2)) } catch { throw .cancelled(operation: "send to \(topic)") }
            }
        }
    }

    /// Sends `records` in the order given and waits until every one is acknowledged.
    ///
    /// Unlike `send` called from several tasks at once, whose records reach librdkafka in
    /// whatever order the tasks happen to run, this hands the records over one after another, so
    /// records for one partition are stored in the order given; and it keeps many in flight, up
    /// to the local queue's bound, instead of waiting for each acknowledgement in turn. The
    /// sequence is read lazily: a long input is never held whole.
    ///
    /// - Parameters:
    ///   - firstAnswerWithin: when given, how long the broker may take to answer the first record
    ///     (delivered or failed), counted from when it is handed over, before the send gives up with `.timedOut` (without waiting for
    ///     the records handed over, which stay unacknowledged): a cluster whose partition leaders
    ///     cannot be reached otherwise holds the records for `message.timeout.ms` (5 minutes by
    ///     default). Once one answer came, the records have `message.timeout.ms` each.
    ///   - delivered: called with each record's 0-based index and report as the broker
    ///     acknowledges it (in this task, in no particular order).
    /// - Returns: the number of records sent.
    /// - Throws: the first failure (records after it may or may not have been stored), after
    ///   waiting for every record already handed over; `.queueFull` when the queue had no room for
    ///   `enqueueTimeout`; `.timedOut` when no answer came within `firstAnswerWithin`; `.closed`;
    ///   `.cancelled` when the calling task was cancelled (at once: records handed over may still
    ///   be stored, none counts as acknowledged).
    @discardableResult
    public func sendInOrder(
        _ records: some Sequence<KafkaProducerRecord>, firstAnswerWithin: Duration? = nil, delivered: (Int, KafkaDeliveryReport) -> Void = { _, _ in }
    ) async throws(KafkaError) -> Int {
        let (results, sink) = AsyncStream<(Int, RDKafkaDelivery.Result)>.makeStream()
        var pending = results.makeAsyncIterator()
        var outstanding = 0
        var failure: (index: Int, error: KafkaError)?
        var answered = false
        var unanswered = false
        // The first answer's deadline: one timer, started when the first record is handed over
        // (the time the sequence takes to make it is not the broker's), that puts a marker
        // (index -1, before every record's) in the stream, which counts only while no record was
        // answered.
        var deadline: Task<Void, Never>?
        defer { deadline?.cancel() }
        func startDeadline() {
            guard deadline == nil, let limit = firstAnswerWithin else { return }
            deadline = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                sink.yield((-1, .failed(.timedOut(operation: "waiting for the broker to answer the first record", timeout: limit))))
            }
        }
        func note(_ index: Int, _ result: RDKafkaDelivery.Result) {
            if index < 0 {
                guard !answered, case .failed(let error) = result else { return }
                unanswered = true
                failure = (index, error)
                return
            }
            outstanding -= 1
            answered = true
            switch result {
            case .delivered(let report): delivered(index, report)
            case .failed(let error): if failure.map({ index < $0.index }) ?? true { failure = (index, error) }
            case .queueFull: break  // never sent through the stream
            }
        }
        var count = 0
        var stoppedByCancellation = false
        records: for (index, record) in records.enumerated() {
            let started = ContinuousClock.now
            while failure == nil {
                guard state.withLock({ $0 == .open }) else {
                    failure = (index, .closed(operation: "send to \(record.topic)"))
                    break records
                }
                guard !Task.isCancelled else {
                    stoppedByCancellation = true
                    break records
                }
                guard let box = deliveries.make({ sink.yield((index, $0)) }) else {
                    failure = (index, .closed(operation: "send to \(record.topic)"))
                    break records
                }
                let opaque = box.retainedOpaque()
                switch client.produce(
                    topic: record.topic, partition: record.partition, key: record.key, value: record.value, headers: record.headers,
                    timestamp: record.timestamp, opaque: opaque)
                {
                case .enqueued:
                    startDeadline()
                    outstanding += 1
                    count += 1
                    continue records
                case .failed(let error):
                    RDKafkaDelivery.discard(opaque)
                    failure = (index, error)
                case .queueFull:
                    RDKafkaDelivery.discard(opaque)
                    let waited = ContinuousClock.now - started
                    if waited >= enqueueTimeout {
                        failure = (index, .queueFull(topic: record.topic, waited: waited))
                    } else if outstanding > 0, let (done, result) = await pending.next() {
                        note(done, result)
                    } else {
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
            break
        }
        // The stream ends early (nil) only when the task is cancelled.
        while outstanding > 0, !unanswered, let (done, result) = await pending.next() {
            note(done, result)
        }
        sink.finish()
        if let failure { throw failure.error }
        if stoppedByCancellation || outstanding > 0 {
            throw .cancelled(operation: "sending records in order (\(count) handed over, \(outstanding) of them not acknowledged)")
        }
        return count
    }

    /// Learns where `topics`' partitions are before the first record goes to them: a new
    /// producer otherwise holds its first records until it has asked (up to a second on
    /// librdkafka 2.0). A topic the cluster does not have (yet) is not an error here; sending to
    /// it is. Blocks no Swift thread.
    ///
    /// - Returns: why a topic could not be prepared, per topic (empty when all were).
    @discardableResult
    public func prepare(topics: [String], timeout: Duration = .seconds(10)) async -> [String: KafkaError] {
        let client = self.client
        return await offload {
            var failures: [String: KafkaError] = [:]
            for topic in topics { failures[topic] = client.prepare(topic: topic, timeout: timeout) }
            return failures
        }
    }

    /// Waits until every record sent so far was acknowledged or failed.
    ///
    /// - Throws: `.timedOut` when records are still outstanding after `timeout`.
    public func flush(timeout: Duration) async throws(KafkaError) {
        let milliseconds = timeout.rdKafkaMilliseconds
        let client = self.client
        let code = await offload { client.flush(timeoutMilliseconds: milliseconds) }
        // The flush's own answer: the out-queue length also counts callbacks waiting to be served
        // (statistics, logs) and records other tasks sent meanwhile.
        if !RDKafkaErrors.isSuccess(code) {
            throw .timedOut(operation: "flush (\(client.outQueueLength) records outstanding, \(RDKafkaErrors.name(of: code.rawValue)))", timeout: timeout)
        }
    }

    /// Registers this producer's `transactional.id` with the cluster (once, before the first
    /// transaction); blocks no Swift thread.
    ///
    /// - Throws: the broker's error, or one saying the producer has no `transactional.id`.
    public func initTransactions(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        try await transaction(.initialize, timeout: timeout)
    }

    /// Starts a transaction: records sent until `commitTransaction` become visible together.
    public func beginTransaction() async throws(KafkaError) {
        try await transaction(.begin, timeout: .zero)
    }

    /// Commits the open transaction, flushing its records first; a commit marker follows them in
    /// each partition they went to.
    public func commitTransaction(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        try await transaction(.commit, timeout: timeout)
    }

    private func transaction(_ step: RDKafkaClient.TransactionStep, timeout: Duration) async throws(KafkaError) {
        let client = self.client
        let milliseconds = timeout.rdKafkaMilliseconds
        if let error = await offload({ client.transaction(step, timeoutMilliseconds: milliseconds) }) { throw error }
    }

    /// Flushes for up to `timeout`, then fails what is left and stops. Later sends throw `.closed`.
    public func close(timeout: Duration = .seconds(30)) async {
        guard
            state.withLock({ state -> Bool in
                defer { state = .closed }
                return state == .open
            })
        else { return }
        try? await flush(timeout: timeout)
        client.purge()
        // Purged records are reported as failed through the main queue; give it a moment to serve
        // them, then fail whatever librdkafka will never report, so no send waits forever.
        try? await flush(timeout: .seconds(2))
        let client = self.client
        await offload { client.stopBackgroundWork() }
        deliveries.failAll(with: .failed(.closed(operation: "send (the producer closed before the broker answered)")))
    }
}
