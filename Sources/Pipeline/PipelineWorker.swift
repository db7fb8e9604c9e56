import Foundation
import InstanceAPI
import Kafka
import Logging

/// One pipeline's worker: consumes requests, plans and runs their calls, publishes one outcome per
/// request, dead-letters what cannot succeed, and stores offsets only behind published work.
///
/// Guarantees (DESIGN.md, "Semantics that must hold"):
/// - An offset is stored only once the outcome and dead letter of every record at or below it are
///   acknowledged by the broker; killing the process at any point loses nothing, and repeats at
///   most the records in flight.
/// - Every item ends with exactly one result code; retryable codes are retried within the policy,
///   then dead-lettered as a request of the leftover items.
/// - Calls on one topic name or device group take effect in offset order within a partition.
/// - At most `maxInFlightItems` items are held; past it, and while the circuit breaker is open,
///   partitions are paused.
/// - `shutdown()` stops fetching, finishes in-flight work within `drainTimeout` (abandoning the
///   rest, which is then delivered again), commits and leaves the group.
public actor PipelineWorker {
    /// The worker's life: running, draining for a stop, stopped.
    enum Phase {
        case running
        case stopping
        case stopped
    }

    /// Why consumption is paused.
    enum PauseReason: Hashable {
        case backpressure
        case breaker
        case stopping
    }

    /// The pipeline this worker runs.
    public nonisolated let configuration: PipelineConfiguration
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    let executor: CallExecutor
    let decoder: RequestDecoder
    let logger: Logger
    let clock = ContinuousClock()
    private let work: AsyncStream<@Sendable () async -> Void>
    private let spawner: AsyncStream<@Sendable () async -> Void>.Continuation

    var phase = Phase.running
    var tracker = OffsetTracker()
    var planner: CallPlanner
    var queue = CallQueue()
    var requests: [Int: RequestState] = [:]
    var requestByID: [String: Int] = [:]
    var nextHandle = 0
    var nextJobID = 0
    var itemsInFlight = 0
    var runningCalls = 0
    var publishing = 0
    var breaker: CircuitBreaker
    var buckets: [BackendAPI: TokenBucket] = [:]
    var wakeAt: ContinuousClock.Instant?
    var assigned: Set<KafkaTopicPartition> = []
    var pauseReasons: Set<PauseReason> = []
    var consumerPaused = false
    var statistics = WorkerStatistics()
    var random = SystemRandomNumberGenerator()

    /// A worker for `configuration`, joining its consumer group.
    ///
    /// - Throws: the consumer's or producer's configuration error.
    public init(
        configuration: PipelineConfiguration, consumer consumerConfiguration: KafkaConfiguration,
        producer producerConfiguration: KafkaConfiguration, client: InstanceAPIClient,
        logger: Logger = Logger(label: "iidbatch.pipeline")
    ) throws(KafkaError) {
        self.configuration = configuration
        self.consumer = try KafkaConsumer(configuration: consumerConfiguration, groupID: configuration.group, topics: [configuration.requestTopic])
        self.producer = try KafkaProducer(configuration: producerConfiguration)
        self.executor = CallExecutor(client: client, topicBackend: configuration.topicBackend)
        self.decoder = RequestDecoder(maxRecordBytes: configuration.maxRecordBytes)
        self.planner = CallPlanner(itemsPerCall: configuration.itemsPerCall)
        self.breaker = CircuitBreaker(
            threshold: configuration.breakerThreshold, initialCooldown: configuration.breakerCooldown,
            maxCooldown: configuration.breakerMaxCooldown)
        var logger = logger
        logger[metadataKey: "pipeline"] = "\(configuration.name)"
        self.logger = logger
        (work, spawner) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    }

    /// Runs until `shutdown()` has finished. Call once.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.readEvents() }
            group.addTask { await self.lingerLoop() }
            for await task in work { group.addTask { await task() } }
            group.cancelAll()
        }
    }

    /// What the worker has done so far.
    public func currentStatistics() -> WorkerStatistics { statistics }

    /// Requests received and not yet published.
    public var requestsInFlight: Int { tracker.inFlight }

    /// Stops gracefully: stops fetching, lets in-flight work finish for up to `drainTimeout`,
    /// stores and commits what is done, leaves the group and ends `run()`. Safe to call twice.
    /// An unreachable cluster delays the stop by at most about 25 s beyond the drain (see
    /// `KafkaConsumer.close()` and `KafkaProducer.close(timeout:)`).
    public func shutdown() async {
        guard phase == .running else { return }
        phase = .stopping
        setPause(.stopping, true)
        let deadline = clock.now + configuration.drainTimeout
        while tracker.inFlight > 0 || publishing > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if tracker.inFlight > 0 {
            logger.warning("stopping with \(tracker.inFlight) requests unfinished after \(configuration.drainTimeout); they will be delivered again")
        }
        storeOffsets()
        phase = .stopped
        do { try await consumer.close() } catch { logger.warning("leaving the group failed: \(error)") }
        await producer.close(timeout: .seconds(5))
        spawner.finish()
    }

    /// Hands `task` to `run()`'s task group.
    func spawn(_ task: @escaping @Sendable () async -> Void) {
        spawner.yield(task)
    }

    // MARK: - Consuming

    private nonisolated func readEvents() async {
        do {
            for try await event in consumer.events {
                switch event {
                case .record(let record): await accept(record)
                case .partitionsAssigned(let partitions): await assign(partitions)
                case .partitionsRevoked(let partitions, let lost): await revoke(partitions, lost: lost)
                }
            }
        } catch {
            logger.error("consuming \(configuration.requestTopic) failed, stopping: \(error)")
            await shutdown()
        }
    }

    private func lingerLoop() async {
        let interval = max(configuration.linger, .milliseconds(5))
        while phase != .stopped {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            enqueue(planner.take(flush: true))
            pump()
        }
    }

    func accept(_ record: KafkaRecord) {
        // After a stop began, records are not tracked: their offsets are never stored, so they
        // are delivered again to whoever takes the partition.
        guard phase == .running, tracker.received(record.topicPartition, offset: record.offset) else { return }
        statistics.records += 1
        let receivedAt = Date()
        guard let value = record.value else {
            return reject(record, RequestRejection(field: nil, reason: "the record has no value"), receivedAt: receivedAt)
        }
        let request: PipelineRequest
        switch decoder.decode(value) {
        case .failure(let rejection): return reject(record, rejection, receivedAt: receivedAt)
        case .success(let decoded): request = decoded
        }
        if let other = requestByID[request.id], let state = requests[other],
            state.partition != record.topicPartition || state.offset != record.offset
        {
            let rejection = RequestRejection(
                field: "id", reason: "'\(request.id)' duplicates a request still in flight (\(state.partition) offset \(state.offset))",
                requestID: request.id, op: request.op.rawValue, replayOf: request.replayOf)
            return reject(record, rejection, receivedAt: receivedAt)
        }
        let handle = nextHandle
        nextHandle += 1
        requests[handle] = RequestState(request: request, record: record, receivedAt: receivedAt)
        requestByID[request.id] = handle
        itemsInFlight += request.items.count
        statistics.peakItemsInFlight = max(statistics.peakItemsInFlight, itemsInFlight)
        planner.add(request, handle: handle)
        enqueue(planner.take(flush: false))
        updateBackpressure()
        pump()
    }

    private func assign(_ partitions: [KafkaTopicPartition]) {
        assigned.formUnion(partitions)
        logger.info("assigned \(partitions.map(\.description).joined(separator: ", "))")
        if consumerPaused {
            do { try consumer.pause(partitions) } catch { logger.warning("pausing newly assigned partitions failed: \(error)") }
        }
    }

    /// Finishes in-flight work of revoked partitions within the drain timeout, stores what is
    /// done, and forgets them. The consumer commits and hands them over after this returns.
    private func revoke(_ partitions: [KafkaTopicPartition], lost: Bool) async {
        logger.info("\(lost ? "lost" : "revoked") \(partitions.map(\.description).joined(separator: ", "))")
        if !lost {
            let deadline = clock.now + configuration.drainTimeout
            while partitions.contains(where: { tracker.inFlight($0) > 0 }), clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            storeOffsets()
        }
        assigned.subtract(partitions)
        tracker.forget(partitions)
    }

    // MARK: - Pausing

    func updateBackpressure() {
        let limit = configuration.maxInFlightItems
        if itemsInFlight >= limit {
            setPause(.backpressure, true)
        } else if itemsInFlight <= limit / 2 {
            setPause(.backpressure, false)
        }
    }

    func setPause(_ reason: PauseReason, _ on: Bool) {
        if on { pauseReasons.insert(reason) } else { pauseReasons.remove(reason) }
        let wanted = !pauseReasons.isEmpty
        guard wanted != consumerPaused else { return }
        consumerPaused = wanted
        let partitions = Array(assigned)
        guard !partitions.isEmpty else { return }
        do {
            if wanted { try consumer.pause(partitions) } else { try consumer.resume(partitions) }
            logger.debug("\(wanted ? "paused" : "resumed") \(partitions.count) partitions (\(pauseReasons))")
        } catch {
            logger.warning("\(wanted ? "pausing" : "resuming") partitions failed: \(error)")
        }
    }

    func storeOffsets() {
        let storable = tracker.takeStorable().filter { assigned.contains($0.key) }
        guard !storable.isEmpty else { return }
        do { try consumer.storeOffsets(storable) } catch { logger.debug("storing offsets failed: \(error)") }
    }
}
