import Foundation
import InstanceAPI
import Kafka
import Logging

/// One pipeline's worker: consumes requests, plans and runs their calls, publishes one outcome per
/// request, dead-letters what cannot succeed, and stores offsets only behind published work.
///
/// The worker is an I/O shell: every decision is made by two pure state machines it owns,
/// `RequestBook` (requests, offsets, assignments, backpressure) and `DispatchMachine` (planning,
/// order, pacing, breaker, retries); the worker feeds them events and performs the actions they
/// return. Nothing it holds is visible outside it, and it waits on events, never by polling.
///
/// Guarantees (docs/design.md, "Semantics that must hold"):
/// - An offset is stored only once the outcome and dead letter of every record at or below it are
///   acknowledged by the broker; killing the process at any point loses nothing, and repeats at
///   most the records in flight.
/// - Every item ends with exactly one result code; retryable codes are retried within the policy,
///   then dead-lettered as a request of the leftover items.
/// - Calls on one topic name or device group take effect in offset order within a partition; work
///   of a revoked partition never starts after the revoke returns.
/// - At most `maxInFlightItems` items and `maxInFlightBytes` record bytes are held until their
///   outcomes are acknowledged; past either the worker takes no more records (`ReadGate`: it holds
///   its reads, then pauses its partitions if that lasts); while the circuit breaker is open,
///   partitions are paused, newly assigned ones included.
/// - Operator overrides (`apply(_:)`) take effect at once: while paused no call starts, calls in
///   flight finish and publish, and partitions stay paused with the group kept.
/// - `shutdown()` stops fetching, finishes in-flight work within `drainTimeout` (abandoning the
///   rest, which is then delivered again), commits and leaves the group.
/// - No record stops it: an outcome or dead letter too large for the cluster is published in its
///   smallest form (`Outcome.withoutItemLists(because:)`, a dead-letter stub), and log lines name
///   requests by `RequestID.shortForm(_:)`.
/// - A failure it cannot recover from (a fatal consumer error, a topic the cluster refuses every
///   record of) stops it loudly: `run()` returns and `failure` says why.
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
        /// An operator paused the pipeline.
        case control
    }

    /// The pipeline this worker runs.
    public nonisolated let configuration: PipelineConfiguration
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    /// Whether the worker made its producer (and so closes it when it stops).
    private let ownsProducer: Bool
    private let executor: CallExecutor
    private let decoder: RequestDecoder
    let metrics: WorkerMetrics
    nonisolated let logger: Logger
    let clock = ContinuousClock()
    private let work: AsyncStream<@Sendable () async -> Void>
    private let spawner: AsyncStream<@Sendable () async -> Void>.Continuation

    var phase = Phase.running
    var book: RequestBook
    var dispatch: DispatchMachine
    var pauseReasons: Set<PauseReason> = []
    var consumerPaused = false
    var statistics = WorkerStatistics()
    /// The settings in force and where each comes from (file, default, operator override).
    public internal(set) var controlled: ControlledSettings
    /// Runs `timer` and `holdTimer`.
    let wakes: WakeScheduler
    private var timer: WakeScheduler.Armed?
    var gate = ReadGate()
    var holdTimer: WakeScheduler.Armed?
    /// The reader, waiting while its reads are held.
    var heldReader: CheckedContinuation<Void, Never>?
    var drains = DrainWaiters()
    var progress = ProgressWaiters()
    private var joined = false
    private var breakerOpenedAt: ContinuousClock.Instant?
    /// Why the worker stopped itself, if it did.
    public private(set) var failure: PipelineWorkerError?

    /// A worker for `configuration`, joining its consumer group, calling through `client`, or
    /// a view of it for the file's `project:` (`PipelineConfiguration.client(from:)`).
    ///
    /// - Throws: the consumer's or producer's configuration error.
    public init(
        configuration: PipelineConfiguration, consumer consumerConfiguration: KafkaConfiguration,
        producer producerConfiguration: KafkaConfiguration, client: InstanceAPIClient, control: ControlledSettings? = nil,
        wakes: WakeScheduler = .tasks, logger: Logger = Logger(label: "iidbatch.pipeline")
    ) throws(KafkaError) {
        let producer = try KafkaProducer(configuration: producerConfiguration.withDefaults(configuration.producerDefaults))
        try self.init(
            configuration: configuration, consumer: consumerConfiguration, producer: producer, ownsProducer: true, client: client, control: control,
            wakes: wakes, logger: logger)
    }

    /// A worker for `configuration` publishing through `producer`, which several workers may share
    /// and which the caller closes after the workers stopped (its `message.max.bytes` should be
    /// at least `configuration.producerDefaults`'). `control` is the operator's settings fetched
    /// before the start (nil: the file's), in force before the first record is read.
    ///
    /// - Throws: the consumer's configuration error.
    public init(
        configuration: PipelineConfiguration, consumer consumerConfiguration: KafkaConfiguration, producer: KafkaProducer,
        client: InstanceAPIClient, control: ControlledSettings? = nil, wakes: WakeScheduler = .tasks,
        logger: Logger = Logger(label: "iidbatch.pipeline")
    ) throws(KafkaError) {
        try self.init(
            configuration: configuration, consumer: consumerConfiguration, producer: producer, ownsProducer: false, client: client, control: control,
            wakes: wakes, logger: logger)
    }

    private init(
        configuration: PipelineConfiguration, consumer consumerConfiguration: KafkaConfiguration, producer: KafkaProducer,
        ownsProducer: Bool, client: InstanceAPIClient, control: ControlledSettings?, wakes: WakeScheduler, logger: Logger
    ) throws(KafkaError) {
        self.configuration = configuration
        self.wakes = wakes
        self.consumer = try KafkaConsumer(
            configuration: consumerConfiguration.withDefaults(configuration.consumerDefaults.merging(["statistics.interval.ms": "5000"]) { own, _ in own }),
            groupID: configuration.group,
            topics: [configuration.requestTopic])
        self.producer = producer
        self.ownsProducer = ownsProducer
        self.executor = CallExecutor(client: configuration.client(from: client), topicBackend: configuration.topicBackend)
        self.decoder = RequestDecoder(configuration: configuration)
        let controlled = control ?? ControlledSettings(file: configuration, all: nil, own: nil)
        let effective = controlled.applied(to: configuration)
        self.controlled = controlled
        self.book = RequestBook(maxInFlightItems: effective.maxInFlightItems, maxInFlightBytes: configuration.maxInFlightBytes)
        var dispatch = DispatchMachine(configuration: effective)
        _ = dispatch.reconfigure(effective, paused: controlled.paused, now: clock.now)
        self.dispatch = dispatch
        if controlled.paused {
            pauseReasons = [.control]
            consumerPaused = true
        }
        self.metrics = WorkerMetrics(pipeline: configuration.name)
        metrics.startAtZero(ops: configuration.takenOps, apis: configuration.apis)
        var logger = logger
        logger[metadataKey: "pipeline"] = "\(configuration.name)"
        self.logger = logger
        (work, spawner) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        metrics.control(paused: controlled.paused, overrides: controlled.overrideVersions)
        if !controlled.overrideVersions.isEmpty {
            logger.notice("starting under operator overrides: \(controlled.summary)")
        }
    }

    /// Runs until `shutdown()` has finished, or the worker stopped itself (see `failure`). Call once.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.readEvents() }
            group.addTask { await self.prepareProducer() }
            for await task in work { group.addTask { await task() } }
            group.cancelAll()
        }
    }

    /// What the worker has done so far.
    public func currentStatistics() -> WorkerStatistics {
        var statistics = statistics
        statistics.peakItemsInFlight = book.peakItemsInFlight
        statistics.peakBytesInFlight = book.peakBytesInFlight
        statistics.paused = controlled.paused
        statistics.controlVersions = controlled.overrideVersions
        for (api, rate) in dispatch.rates {
            if let pace = rate.pace { statistics.rates[api.rawValue] = pace }
            statistics.throttledCalls += rate.throttles
        }
        return statistics
    }

    /// The statistics once `condition` holds for them (at once if it holds now), or once the
    /// worker has stopped, whichever comes first. Waits on the worker's events; never polls.
    public func statistics(when condition: @escaping @Sendable (WorkerStatistics) -> Bool) async -> WorkerStatistics {
        let now = currentStatistics()
        if condition(now) || phase == .stopped { return now }
        return await withCheckedContinuation { progress.add(condition, $0) }
    }

    /// Whether the worker has joined its group (got an assignment, possibly empty), and since when
    /// its circuit breaker has been open (nil while closed): what readiness is judged on.
    public func health() -> (joined: Bool, breakerOpenSince: ContinuousClock.Instant?) {
        (joined, dispatch.breakerClosed ? nil : breakerOpenedAt)
    }

    /// The consumer lag of each partition the worker owns now, from librdkafka's statistics
    /// (empty until the first report; `statistics.interval.ms` sets how often).
    public func consumerLag() -> [KafkaTopicPartition: Int64] {
        let owned = book.assignedPartitions
        return consumer.statistics?.lag.filter { owned.contains($0.key) } ?? [:]
    }

    /// Requests received and not yet published.
    public var requestsInFlight: Int { book.requestsInFlight }

    /// Stops gracefully: stops fetching, lets in-flight work finish for up to `drainTimeout`,
    /// stores and commits what is done, leaves the group and ends `run()`. Safe to call twice.
    /// An unreachable cluster delays the stop by at most about 25 s beyond the drain (see
    /// `KafkaConsumer.close()` and `KafkaProducer.close(timeout:)`).
    public func shutdown() async {
        await stop(drain: true)
    }

    private func stop(drain: Bool) async {
        guard phase == .running else { return }
        phase = .stopping
        setPause(.stopping, true)
        if drain, !(await waitForDrain(.all, deadline: clock.now + configuration.drainTimeout)) {
            logger.warning("stopping with \(book.requestsInFlight) requests unfinished after \(configuration.drainTimeout); they will be delivered again")
        }
        dispatch.stop()
        storeOffsets(book.storable())
        phase = .stopped
        timer?.cancel()
        holdTimer?.cancel()
        releaseReader()
        drains.expireAll()
        progress.resume(with: currentStatistics(), all: true)
        do { try await consumer.close() } catch { logger.warning("leaving the group failed: \(error)") }
        if ownsProducer {
            await producer.close(timeout: .seconds(5))
        } else {
            try? await producer.flush(timeout: .seconds(5))
        }
        spawner.finish()
    }

    /// The worker cannot go on: logs why, records it and stops without waiting for a drain.
    func fail(_ error: PipelineWorkerError) async {
        guard failure == nil else { return }
        failure = error
        logger.critical("\(error); stopping the worker")
        await stop(drain: false)
    }

    /// Hands `task` to `run()`'s task group.
    func spawn(_ task: @escaping @Sendable () async -> Void) {
        spawner.yield(task)
    }

    /// Has the producer learn where the topics this worker writes to are while the consumer
    /// joins its group, so that the first outcomes are not held back for it.
    private nonisolated func prepareProducer() async {
        let topics =
            [configuration.outcomeTopic, configuration.deadLetterTopic] + (configuration.takes(.groupsExport) ? [configuration.exportTopic] : [])
        for (topic, error) in await producer.prepare(topics: topics) {
            logger.debug("the producer could not learn \(topic)'s partitions ahead of its first record: \(error)")
        }
    }

    // MARK: - Consuming

    /// Isolated to the worker: an event already buffered is handled without a hop to the actor
    /// and back (two executor switches per record otherwise).
    private func readEvents() async {
        do {
            for try await event in consumer.events {
                switch event {
                case .record(let record): accept(record)
                case .partitionsAssigned(let partitions): assign(partitions)
                case .partitionsRevoked(let partitions, let lost): await revoke(partitions, lost: lost)
                }
                await readsAllowed()
            }
        } catch {
            await fail(.consumer(topic: configuration.requestTopic, error))
        }
    }

    private func accept(_ record: KafkaRecord) {
        // After a stop began, records are not tracked: their offsets are never stored, so they
        // are delivered again to whoever takes the partition.
        guard phase == .running else { return }
        let decoded = record.value.map { decoder.decode($0) } ?? .failure(RequestRejection(field: nil, reason: "the record has no value"))
        switch book.receive(record, decoded, at: Date()) {
        case .ignored:
            return
        case .rejected(let publication):
            statistics.records += 1
            metrics.recordConsumed()
            logger.info("rejected \(record.topicPartition) offset \(record.offset): \(publication.outcome.reason ?? "")")
            publish([publication])
        case .admitted(let handle, let request):
            statistics.records += 1
            metrics.recordConsumed()
            perform(dispatch.add(request, handle: handle, now: clock.now))
        }
        updateBackpressure()
    }

    private func assign(_ partitions: [KafkaTopicPartition]) {
        let generation = book.assign(partitions)
        joined = true
        logger.info("assigned \(partitions.map(\.description).joined(separator: ", ")) (\(generation))")
        // librdkafka remembers a partition's pause across a revoke; match ours exactly.
        do {
            if consumerPaused { try consumer.pause(partitions) } else { try consumer.resume(partitions) }
        } catch {
            logger.warning("\(consumerPaused ? "pausing" : "resuming") newly assigned partitions failed: \(error)")
        }
    }

    /// Drops the waiting work of revoked partitions at once; lets calls already running finish
    /// within the drain timeout (not for lost partitions), stores what is done, and abandons the
    /// rest, which the new owner receives again. Nothing of theirs starts after this returns.
    private func revoke(_ partitions: [KafkaTopicPartition], lost: Bool) async {
        let revoked = Set(partitions)
        let handles = book.handles(in: revoked)
        logger.info("\(lost ? "lost" : "revoked") \(partitions.map(\.description).joined(separator: ", ")) with \(handles.count) requests in flight")
        perform(dispatch.drop(handles, now: clock.now))
        if !lost {
            _ = await waitForDrain(.partitions(revoked, handles), deadline: clock.now + configuration.drainTimeout)
            storeOffsets(book.storable())
        }
        let abandoned = book.revoke(revoked)
        if !abandoned.isEmpty { logger.info("abandoned \(abandoned.count) requests of the revoked partitions; their new owner repeats them") }
        updateBackpressure()
    }

    // MARK: - Performing the machines' actions

    func perform(_ actions: [DispatchAction]) {
        for action in actions {
            switch action {
            case .start(let job):
                statistics.calls += 1
                if job.attempts > 0 {
                    statistics.retries += job.items.count
                    metrics.retried(items: job.items.count)
                }
                book.noteCall(for: job.origins.runs.lazy.map(\.request))
                let executor = self.executor
                let metrics = self.metrics
                spawn {
                    let started = ContinuousClock.now
                    let answer = await executor.perform(job.op, target: job.target, items: job.items, isRetry: job.attempts > 0)
                    let status = if case .failed(let error) = answer { error.statusLabel } else { "200" }
                    metrics.callAttempt(api: executor.api(for: job.op).rawValue, status: status, duration: .now - started)
                    await self.callFinished(job.id, answer)
                }
            case .settle(let settlements):
                publish(book.settle(settlements, at: Date()))
            case .pauseForOutage(let paused):
                setPause(.breaker, paused)
            case .breakerOpened(let error):
                statistics.breakerOpenings += 1
                breakerOpenedAt = clock.now
                logger.warning("circuit breaker open, pausing consumption: \(error)")
            case .setTimer(let instant):
                timer?.cancel()
                timer = wakes.schedule(at: instant) { Task { await self.timerFired() } }
            }
        }
        updateBackpressure()
        resumeWaiters()
        updateGauges()
    }

    func updateGauges() {
        metrics.state(
            itemsInFlight: book.itemsInFlight, pausedPartitions: consumerPaused ? book.assignedPartitions.count : 0,
            breakerOpen: !dispatch.breakerClosed, rates: dispatch.rates, concurrencyLimits: dispatch.concurrencyLimits)
    }

    private func callFinished(_ jobID: Int, _ answer: CallAnswer) {
        if case .failed = answer { statistics.failedCalls += 1 }
        perform(dispatch.finished(jobID: jobID, answer, now: clock.now))
    }

    private func timerFired() {
        guard phase != .stopped else { return }
        perform(dispatch.timerFired(now: clock.now))
    }

    // MARK: - Offsets

    func storeOffsets(_ offsets: [KafkaTopicPartition: Int64]) {
        guard !offsets.isEmpty else { return }
        do { try consumer.storeOffsets(offsets) } catch { logger.debug("storing offsets failed: \(error)") }
    }
}
