import Foundation
import InstanceAPI
import Kafka
import Logging

/// One pipeline's worker: consumes requests, plans and runs their calls, publishes one outcome per
/// request, dead-letters what cannot succeed, and stores offsets only behind published work.
///
/// The worker is an I/O shell: every decision is made by one pure state machine it owns,
/// `WorkerMachine` (which composes `RequestBook`, `DispatchMachine` and `ReadGate`); the worker
/// feeds it events and performs the `WorkerAction`s it returns. What else it holds is I/O: the
/// clients, its timers and the continuations of those who wait. It waits on events, never by
/// polling.
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
///   its reads, then pauses its partitions if that lasts), but for up to
///   `WorkerMachine.probeRecords` records per opening of the circuit breaker while only calls
///   that failed like an outage wait (new work is then the one way to close it); while the
///   breaker is open and other work waits, partitions are paused, newly assigned ones included.
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
    /// The pipeline this worker runs.
    public nonisolated let configuration: PipelineConfiguration
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    /// Whether the worker made its producer (and so closes it when it stops).
    private let ownsProducer: Bool
    private let executor: CallExecutor
    private let decoder: RequestDecoder
    private let publisher: OutcomePublisher
    private let metrics: WorkerMetrics
    private nonisolated let logger: Logger
    private let clock = ContinuousClock()
    /// Runs `timer` and `holdTimer`.
    private let wakes: WakeScheduler
    private let work: AsyncStream<@Sendable () async -> Void>
    private let spawner: AsyncStream<@Sendable () async -> Void>.Continuation

    /// Every decision's state.
    private var machine: WorkerMachine

    // I/O only: timers, and the continuations of those who wait.
    private var timer: WakeScheduler.Armed?
    private var holdTimer: WakeScheduler.Armed?
    /// The reader, waiting while its reads are held.
    private var heldReader: CheckedContinuation<Void, Never>?
    /// Drains waited for, by the machine's id.
    private var drainWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    /// The send gate of each running call, by job id, closed when the call is withdrawn.
    private var sendGates: [Int: SendGate] = [:]
    private var progress = ProgressWaiters()

    /// Why the worker stopped itself, if it did.
    public var failure: PipelineWorkerError? { machine.failure }

    /// A worker for `configuration`, joining its consumer group, calling through `client`, or
    /// a view of it for the file's `project:` (`PipelineConfiguration.client(from:)`); `wakes`
    /// runs its timers (`WakeScheduler`: a process whose tasks run on NIO event loops passes one
    /// on a loop).
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
        self.executor = CallExecutor(client: configuration.client(from: client))
        self.decoder = RequestDecoder(configuration: configuration)
        let controlled = control ?? ControlledSettings(file: configuration, all: nil, own: nil)
        self.machine = WorkerMachine(configuration: configuration, controlled: controlled, now: clock.now)
        self.metrics = WorkerMetrics(pipeline: configuration.name)
        metrics.startAtZero(ops: configuration.takenOps, apis: configuration.apis)
        var logger = logger
        logger[metadataKey: "pipeline"] = "\(configuration.name)"
        self.logger = logger
        self.publisher = OutcomePublisher(
            producer: producer,
            topics: .init(outcome: configuration.outcomeTopic, deadLetter: configuration.deadLetterTopic, export: configuration.exportTopic),
            maxDeadLetterBytes: configuration.maxDeadLetterBytes, logger: logger)
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

    /// The settings in force and where each comes from (file, default, operator override).
    public var controlled: ControlledSettings { machine.controlled }

    /// What the worker has done so far.
    public func currentStatistics() -> WorkerStatistics { machine.statistics }

    /// The statistics once `condition` holds for them (at once if it holds now), or once the
    /// worker has stopped, whichever comes first. Waits on the worker's events; never polls.
    public func statistics(when condition: @escaping @Sendable (WorkerStatistics) -> Bool) async -> WorkerStatistics {
        let now = machine.statistics
        if condition(now) || machine.phase == .stopped { return now }
        return await withCheckedContinuation { progress.add(condition, $0) }
    }

    /// Whether the worker has joined its group (got an assignment, possibly empty), and since when
    /// its circuit breaker has been open (nil while closed): what readiness is judged on.
    public func health() -> (joined: Bool, breakerOpenSince: ContinuousClock.Instant?) {
        (machine.joined, machine.dispatch.breakerClosed ? nil : machine.breakerOpenedAt)
    }

    /// The consumer lag of each partition the worker owns now, from librdkafka's statistics
    /// (empty until the first report; `statistics.interval.ms` sets how often).
    public func consumerLag() -> [KafkaTopicPartition: Int64] {
        let owned = machine.book.assignedPartitions
        return consumer.statistics?.lag.filter { owned.contains($0.key) } ?? [:]
    }

    /// Requests received and not yet published.
    public var requestsInFlight: Int { machine.book.requestsInFlight }

    /// Puts an operator's `settings` in force at once: the concurrency, rate ceiling and retry
    /// budget govern the next call to start, `max-in-flight-items` the next backpressure decision.
    /// Pausing starts no further call; calls in flight finish, their outcomes are published and
    /// their offsets stored; partitions are paused with the group membership kept. Resuming lets
    /// the waiting work start at once. Settings equal to those in force change nothing.
    public func apply(_ settings: ControlledSettings) {
        perform(machine.apply(settings, now: clock.now, date: Date()))
        metrics.control(paused: settings.paused, overrides: settings.overrideVersions)
    }

    /// Stops gracefully: stops fetching, lets in-flight work finish for up to `drainTimeout`,
    /// stores and commits what is done, leaves the group and ends `run()`. Safe to call twice.
    /// An unreachable cluster delays the stop by at most about 25 s beyond the drain (see
    /// `KafkaConsumer.close()` and `KafkaProducer.close(timeout:)`).
    public func shutdown() async { await stop(drain: true) }

    /// After a failure no drain is waited for, and one under way ends (`WorkerMachine.failed`).
    private func stop(drain: Bool) async {
        guard machine.claimStop() else { return }
        if let actions = machine.beginStop(now: clock.now) { perform(actions) }
        if drain, !(await waitForDrain(.all, deadline: clock.now + configuration.drainTimeout)) || !machine.isDrained(.all) {
            let why = machine.failure == nil ? "after \(configuration.drainTimeout)" : "(the worker failed)"
            logger.warning("stopping with \(machine.book.requestsInFlight) requests unfinished \(why); they will be delivered again")
        }
        perform(machine.finishStop())
        timer?.cancel()
        holdTimer?.cancel()
        wakeReader()
        progress.resume(with: machine.statistics, all: true)
        do { try await consumer.close() } catch { logger.warning("leaving the group failed: \(error)") }
        if ownsProducer {
            await producer.close(timeout: .seconds(5))
        } else {
            try? await producer.flush(timeout: .seconds(5))
        }
        spawner.finish()
    }

    /// The worker cannot go on: logs why, records it, takes no record from now on, and stops
    /// without waiting for a drain (in a task of its own: the stop awaits the clients).
    private func fail(_ error: PipelineWorkerError) {
        guard let actions = machine.failed(error, now: clock.now) else { return }
        logger.critical("\(error); stopping the worker")
        perform(actions)
        spawn { await self.stop(drain: false) }
    }

    /// Hands `task` to `run()`'s task group.
    private func spawn(_ task: @escaping @Sendable () async -> Void) {
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

    // MARK: - Events

    /// Isolated to the worker: an event already buffered is handled without a hop to the actor
    /// and back (two executor switches per record otherwise).
    private func readEvents() async {
        do {
            for try await event in consumer.events {
                switch event {
                case .record(let record):
                    let decoded = record.value.map { decoder.decode($0) } ?? .failure(RequestRejection(field: nil, reason: "the record has no value"))
                    perform(machine.received(record, decoded, now: clock.now, date: Date()))
                case .partitionsAssigned(let partitions):
                    perform(machine.assigned(partitions))
                case .partitionsRevoked(let partitions, let lost):
                    await revoke(partitions, lost: lost)
                }
                await readsAllowed()
            }
        } catch {
            fail(.consumer(topic: configuration.requestTopic, error))
        }
    }

    /// Drops the waiting work of revoked partitions at once; lets calls already running finish
    /// within the drain timeout (not for lost partitions), stores what is done, and abandons the
    /// rest, which the new owner receives again. Nothing of theirs starts after this returns.
    private func revoke(_ partitions: [KafkaTopicPartition], lost: Bool) async {
        let (drain, actions) = machine.revokeStarted(partitions, lost: lost, now: clock.now, date: Date())
        perform(actions)
        if let drain { _ = await waitForDrain(drain, deadline: clock.now + configuration.drainTimeout) }
        perform(machine.revokeFinished(partitions, lost: lost, now: clock.now))
    }

    /// Returns when the reader may take its next record: at once, unless reads are held.
    private func readsAllowed() async {
        guard machine.readsHeld else { return }
        await withCheckedContinuation { heldReader = $0 }
    }

    /// Waits until `condition` holds (true) or `deadline` passes (false), woken by the events
    /// that change it, not by polling.
    private func waitForDrain(_ condition: DrainCondition, deadline: ContinuousClock.Instant) async -> Bool {
        guard let id = machine.beginDrain(condition) else { return true }
        let expiry = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.drainExpired(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { drainWaiters[id] = $0 }
    }

    private func drainExpired(_ id: Int) {
        if machine.expireDrain(id) { drainWaiters.removeValue(forKey: id)?.resume(returning: false) }
    }

    private func callFinished(_ jobID: Int, of api: BackendAPI, _ answer: CallAnswer) {
        sendGates[jobID] = nil
        perform(machine.callFinished(jobID, of: api, answer, now: clock.now, date: Date()))
    }

    private func published(_ publication: Publication, _ result: PublishResult) {
        perform(machine.published(publication, result, now: clock.now, date: Date()))
    }

    // MARK: - Performing the machine's actions

    private func perform(_ actions: [WorkerAction]) {
        for action in actions {
            switch action {
            case .startCall(let job):
                start(job)
            case .withdrawCalls(let jobIDs):
                for id in jobIDs { sendGates[id]?.close() }
            case .publish(let publication):
                publish(publication)
            case .storeOffsets(let offsets):
                do { try consumer.storeOffsets(offsets) } catch { logger.debug("storing offsets failed: \(error)") }
            case .setTimer(let instant):
                timer?.cancel()
                timer = wakes.schedule(at: instant) { Task { await self.timerFired() } }
            case .holdReads(let deadline):
                holdTimer?.cancel()
                holdTimer = wakes.schedule(at: deadline) { Task { await self.holdExpired() } }
            case .releaseReads:
                holdTimer?.cancel()
                holdTimer = nil
                wakeReader()
            case .wakeReader:
                wakeReader()
            case .pausePartitions(let partitions), .resumePartitions(let partitions):
                let pausing = if case .pausePartitions = action { true } else { false }
                do {
                    if pausing { try consumer.pause(partitions) } else { try consumer.resume(partitions) }
                    logger.debug("\(pausing ? "paused" : "resumed") \(partitions.count) partitions")
                } catch {
                    logger.warning("\(pausing ? "pausing" : "resuming") partitions failed: \(error)")
                }
            case .drainEnded(let id, let drained):
                drainWaiters.removeValue(forKey: id)?.resume(returning: drained)
            case .requestLatency(let latency):
                metrics.observeRequest(latency: latency)
            case .log(let level, let line):
                logger.log(level: level, "\(line)")
            case .fail(let error):
                fail(error)
            }
        }
        if !progress.isEmpty { progress.resume(with: machine.statistics) }
    }

    private func start(_ job: CallJob) {
        let executor = self.executor
        let metrics = self.metrics
        let api = job.api
        let gate = SendGate()
        sendGates[job.id] = gate
        spawn {
            let started = ContinuousClock.now
            let answer = await SendGate.$current.withValue(gate) {
                await executor.perform(job.op, calling: api, target: job.target, items: job.items, isRetry: job.mayHaveTakenEffect)
            }
            metrics.observeCall(api: api.rawValue, duration: .now - started)
            await self.callFinished(job.id, of: api, answer)
        }
    }

    private func publish(_ publication: Publication) {
        let value: [UInt8]
        let exports: [(key: [UInt8], value: [UInt8])]
        do {
            value = publication.outcome.wireBytes(limit: configuration.maxOutcomeBytes)
            exports = try publication.groupExports.map { ($0.recordKey, try $0.wireBytes()) }
        } catch {
            // Outcomes are plain values; this cannot fail short of a bug. Do not lose the record.
            fail(.unpublishable(requestID: publication.outcome.requestID, reason: "\(error)"))
            return
        }
        let publisher = self.publisher
        spawn {
            let result = await publisher.publish(publication, value: value, exports: exports)
            await self.published(publication, result)
        }
    }

    private func timerFired() {
        perform(machine.timerFired(now: clock.now, date: Date()))
    }

    private func holdExpired() {
        perform(machine.holdExpired(now: clock.now))
    }

    private func wakeReader() {
        heldReader?.resume()
        heldReader = nil
    }

    /// Brings the worker's metrics up to date: its counters follow its statistics, its gauges
    /// take the state now (items in flight, paused partitions, breaker, pace and concurrency of
    /// each API). A scrape calls it before it reads the metrics; nothing else needs them current,
    /// so no event pays for them (following them after every event was 3 % of the worker's CPU).
    public func refreshMetrics() {
        metrics.follow(machine.counts)
        let dispatch = machine.dispatch
        metrics.state(
            itemsInFlight: machine.book.itemsInFlight, pausedPartitions: machine.consumerPaused ? machine.book.assignedPartitions.count : 0,
            breakerOpen: !dispatch.breakerClosed, rates: dispatch.rates, concurrencyLimits: dispatch.concurrencyLimits)
    }
}
