import Foundation
import InstanceAPI
import Kafka

@testable import Pipeline

/// The worker's whole machine (`WorkerMachine`, composing `RequestBook` with its `OffsetTracker`,
/// `DispatchMachine` and `ReadGate`) driven as `PipelineWorker` drives it, by one seeded random
/// sequence of events: records arriving on two partitions (requests, and bytes an adversary chose,
/// through the real `RequestDecoder`) unless the machine paused them or holds reads, calls answered
/// with anything `SimulatedBackend` can say, timers and read holds, clock jumps, acknowledgements
/// in any order, revokes (lost or not) and reassignments that deliver again from the committed
/// offset, and operator changes (concurrency, in-flight bound, pause, cancels of a batch) through
/// `ControlledSettings`.
/// After every step it checks the invariants and throws a `SimulationViolation` naming the first
/// one broken.
///
/// A run has two phases: `chaos(steps:)`, then `heal()`, in which the backend answers healthily
/// (but for ids of another project, and stuck ids that fail the same way for good), new work keeps
/// arriving and the operator resumes: everything read must then be published and committed within
/// a bounded simulated time, or the run stalled. Or, instead of healing, `stop()`: the worker's
/// stop, by a SIGTERM or an outcome the broker refused for good.
struct WorkerSimulation {
    /// What the simulation knows of a request the machine admitted.
    private struct Admitted {
        var id: String
        var items: Int
        /// Each item's code in the last answer that carried it: its final code once the request
        /// is published.
        var lastCodes: [Int: ResultCode] = [:]
        var published = false
        /// The request, and when its record was produced: what a cancel matches.
        var request: PipelineRequest
        var producedAt: Date?
        /// Calls started that carried any of its items.
        var calls = 0
    }

    /// One partition's log, read position and commits, as the consumer and broker would keep them.
    private struct PartitionLog {
        var records: [[UInt8]] = []
        /// When each record was produced (its timestamp).
        var stamps: [Date] = []
        var readPosition: Int64 = 0
        var committed: Int64 = 0
        var generation: AssignmentGeneration?
        var acknowledged: Set<Int64> = []
        var assigned = true
        /// Paused by the machine (`.pausePartitions`): nothing is fetched from it.
        var paused = false
    }

    private let partitions = [KafkaTopicPartition(topic: "requests", partition: 0), KafkaTopicPartition(topic: "requests", partition: 1)]
    private var configuration: PipelineConfiguration
    private let decoder: RequestDecoder
    private var machine: WorkerMachine
    private var controls = 0
    private var backend: SimulatedBackend
    private var random: SplitMix64
    private var now: ContinuousClock.Instant
    private let startedAt: ContinuousClock.Instant
    private var timer: ContinuousClock.Instant?
    /// The deadline of the machine's read hold (`.holdReads`), until `.releaseReads`.
    private var hold: ContinuousClock.Instant?
    private var running: [Int: CallJob] = [:]
    private var admitted: [RequestHandle: Admitted] = [:]
    private var handleByID: [String: RequestHandle] = [:]
    /// Requests a cancel ended as they arrived (never held), by id, until their outcome is seen.
    private var cancelledOnArrival: [String: Admitted] = [:]
    private var pending: [Publication] = []
    private var logs: [KafkaTopicPartition: PartitionLog] = [:]
    private var operatorPaused = false
    /// The cancels written so far: they stay in force through every later change.
    private var cancels: [ControlCancel] = []
    private var nextRequest = 0
    /// The stop began (`stop()`): nothing is read any more.
    private var stopping = false
    /// The stop finished: no call starts and nothing is published any more.
    private var stopped = false
    /// The worker failed itself (a refused outcome), as `stop()` made it.
    private var failedItself: PipelineWorkerError?
    /// The longest any wait may last: a linger, a backoff (a server's `Retry-After` included), the
    /// breaker's longest cooldown, or a slot at the adaptive rate's floor.
    private let longestWait: Duration
    /// Steps taken, for messages.
    private(set) var steps = 0

    /// A simulation of the seed's configuration and events.
    init(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var configuration = PipelineConfiguration(
            name: "simulated", requestTopic: "requests", linger: .milliseconds(Int64(1 + random.next() % 100)),
            concurrency: Int(1 + random.next() % 8),
            retry: RetryPolicy(
                maxAttempts: Int(1 + random.next() % 5), initialBackoff: .milliseconds(100), maxBackoff: .seconds(Int64(1 + random.next() % 10)),
                maxElapsed: .seconds(Int64(5 + random.next() % 120))),
            topicBackend: random.next() % 2 == 0 ? .iidBatch : .fcmV1, breakerThreshold: Int(1 + random.next() % 5),
            breakerCooldown: .milliseconds(500), breakerMaxCooldown: .seconds(8))
        // Issue 33: a third of the runs unpaced until the first throttle, as the shipped files are.
        let start = Double(1 + random.next() % 200)
        configuration.adaptiveRate.start = random.next() % 3 == 0 ? nil : start
        // A third of the runs under a tight in-flight bound: the read gate holds and pauses.
        configuration.maxInFlightItems = random.next() % 3 == 0 ? Int(20 + random.next() % 2_000) : 1_000_000
        configuration.maxInFlightBytes = 1 << 40
        self.configuration = configuration
        self.decoder = RequestDecoder(configuration: configuration)
        let now = ContinuousClock.now
        self.machine = WorkerMachine(
            configuration: configuration, controlled: ControlledSettings(file: configuration, all: nil, own: nil), now: now,
            random: SplitMix64(seed: random.next()))
        self.backend = SimulatedBackend(random: SplitMix64(seed: random.next()))
        self.random = random
        self.now = now
        self.startedAt = now
        self.longestWait = max(
            configuration.linger, configuration.retry.maxBackoff, configuration.breakerMaxCooldown, .seconds(1.0 / configuration.adaptiveRate.floor),
            ReadGate.holdLimit)
        for partition in partitions { logs[partition] = PartitionLog() }
        try! perform(machine.assigned(partitions))
        let generation = machine.book.generation(of: partitions[0])
        for partition in partitions { logs[partition]!.generation = generation }
    }

    // MARK: - Phases

    /// `steps` random events, checking the invariants after each.
    mutating func chaos(steps count: Int) throws {
        for _ in 0..<count {
            steps += 1
            switch random.next() % 100 {
            case 0..<20: try arrive()
            case 20..<55: try answerOne(healthy: false)
            case 55..<72: try advance(jump: random.next() % 4 == 0)
            case 72..<90: try acknowledgeOne()
            case 90..<93: try revokeAndReassign()
            case 93..<97: try changeSettings()
            default: try arriveHostile()
            }
        }
    }

    /// The backend heals and the operator resumes; every record read must be published and its
    /// offset committed within a bounded simulated time.
    mutating func heal() throws {
        if operatorPaused || machine.controlled.summary != "" {
            operatorPaused = false
            try perform(machine.apply(ControlledSettings(file: configuration, all: nil, own: nil, cancels: cancels), now: now, date: Date()))
        }
        let deadline = now + .seconds(3_600)
        var nextArrival = now
        var arrivals = 0
        while !isDone {
            steps += 1
            guard now < deadline, steps < 2_000_000 else { throw violation("stalled: \(unfinished) after an hour of healthy answers") }
            // New work keeps coming, as in production (a deletion every 30 s): the probe that shows
            // the system works while a stuck item fails alone.
            if now >= nextArrival, arrivals < 100 {
                arrivals += 1
                nextArrival = now + .seconds(30)
                let request = PipelineRequest(
                    id: "heal-\(arrivals)", op: .installationsDelete, target: .subject(nil), items: ["fid-heal-\(arrivals)"], batch: randomBatch())
                append(Array(request.jsonBody()), to: partitions[arrivals % 2])
            }
            var choices: [Int] = []
            if !running.isEmpty { choices.append(0) }
            if !pending.isEmpty { choices.append(1) }
            if !machine.readsHeld, partitions.contains(where: { hasUnread($0) && !logs[$0]!.paused }) { choices.append(2) }
            if choices.isEmpty {
                guard timer != nil || hold != nil else {
                    throw violation("stalled: nothing running, nothing to acknowledge, no timer set, and \(unfinished)")
                }
                try advance(jump: false)
                continue
            }
            switch choices[Int(random.next() % UInt64(choices.count))] {
            case 0: try answerOne(healthy: true)
            case 1: try acknowledgeOne()
            default: try deliverNext(partitions.first { hasUnread($0) && !logs[$0]!.paused }!)
            }
        }
    }

    /// The worker stops after the chaos: by a SIGTERM (a drain, with a healthy backend until it
    /// holds, or a failing one until a deadline) or because the broker refused an outcome for good
    /// (no drain). From the stop's start no record is read; when it finishes, what is done is stored
    /// (the store point never passing an unacknowledged outcome); from then on no call starts and
    /// nothing is published, whatever comes back: answers, acknowledgements, abandoned outcomes.
    mutating func stop() throws {
        stopping = true
        var drain = true
        if !pending.isEmpty, random.next() % 3 == 0 {
            let publication = pending.remove(at: Int(random.next() % UInt64(pending.count)))
            let refusal = KafkaError.broker(code: .topicAuthorizationFailed, message: "not authorized to write to outcomes")
            try perform(machine.published(publication, .refused(topic: "outcomes", refusal), now: now, date: Date()))
            guard let error = failedItself else { throw violation("an outcome refused for good did not fail the worker") }
            // As `PipelineWorker.fail`: the failure is recorded once, and the stop runs undrained.
            try perform(machine.failed(error, now: now) ?? [])
            guard machine.claimStop(), machine.beginStop(now: now) == nil else { throw violation("the failure did not begin the stop") }
            drain = false
        } else {
            guard machine.claimStop() else { throw violation("a stop was claimed before the stop") }
            try perform(machine.beginStop(now: now) ?? [])
        }
        for partition in partitions where logs[partition]!.assigned && !logs[partition]!.paused {
            throw violation("\(partition) is still read after the stop began")
        }
        // A record fetched before the pause took hold may still come: it is not taken.
        let partition = partitions[Int(random.next() % 2)]
        append(Array(newRequest().jsonBody()), to: partition)
        let bytes = logs[partition]!.records.last!
        let late = KafkaRecord(
            topic: partition.topic, partition: partition.partition, offset: Int64(logs[partition]!.records.count - 1), key: nil, value: bytes,
            timestamp: logs[partition]!.stamps.last!)
        guard machine.received(late, decoder.decode(bytes), now: now, date: Date()).isEmpty else {
            throw violation("a record was taken after the stop began")
        }
        if drain { try drainForStop(healthy: random.next() % 2 == 0) }
        try perform(machine.finishStop())
        stopped = true
        while !running.isEmpty || !pending.isEmpty {
            steps += 1
            if !running.isEmpty, pending.isEmpty || random.next() % 2 == 0 {
                try answerOne(healthy: random.next() % 2 == 0)
            } else if random.next() % 2 == 0 {
                try acknowledgeOne()
            } else {
                let publication = pending.remove(at: Int(random.next() % UInt64(pending.count)))
                try perform(machine.published(publication, .abandoned, now: now, date: Date()))
            }
        }
        try advance(jump: true)
    }

    /// The stop's drain: calls and acknowledgements go on until the machine is drained; with a
    /// healthy backend it must be within an hour, but for stuck items alone behind an open
    /// breaker (only new work could close it, and none is read now: the drain's deadline ends
    /// it, and the records are delivered again); with a failing backend it ends at a random
    /// deadline.
    private mutating func drainForStop(healthy: Bool) throws {
        let deadline = now + (healthy ? .seconds(3_600) : .milliseconds(Int64(random.next() % 60_000)))
        while !machine.isDrained(.all) {
            if healthy, running.isEmpty, pending.isEmpty, machine.dispatch.awaitsNewWork { return }
            steps += 1
            guard now < deadline, steps < 2_000_000 else {
                if healthy { throw violation("the stop's drain stalled: \(unfinished) after an hour of healthy answers") }
                return
            }
            var choices: [Int] = []
            if !running.isEmpty { choices.append(0) }
            if !pending.isEmpty { choices.append(1) }
            if choices.isEmpty || random.next() % 8 == 0 {
                guard timer != nil || hold != nil || !choices.isEmpty else {
                    throw violation("the stop's drain stalled: nothing running, nothing to acknowledge, no timer set, and \(unfinished)")
                }
                try advance(jump: false)
                continue
            }
            switch choices[Int(random.next() % UInt64(choices.count))] {
            case 0: try answerOne(healthy: healthy)
            default: try acknowledgeOne()
            }
        }
    }

    // MARK: - Events

    private mutating func arrive() throws {
        let partition = partitions[Int(random.next() % 2)]
        if !hasUnread(partition) || random.next() % 3 != 0 { append(Array(newRequest().jsonBody()), to: partition) }
        try deliverNext(partition)
    }

    /// A record whose bytes an adversary chose: a request mangled (a byte flipped, cut short, a
    /// second `op`, an id of 5,000 bytes, a byte that is not UTF-8), or noise.
    private mutating func arriveHostile() throws {
        let partition = partitions[Int(random.next() % 2)]
        var bytes = Array(newRequest().jsonBody())
        let at = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 7 {
        case 0: bytes[at] ^= UInt8(truncatingIfNeeded: 1 + random.next() % 255)
        case 1: bytes.removeLast(bytes.count - at)
        case 2: bytes.insert(contentsOf: Array(#""op":"instances.info","#.utf8), at: 1)
        case 3: bytes.insert(contentsOf: Array(#""id":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 5_000) + Array(#"","#.utf8), at: 1)
        case 4: bytes.insert(0xFF, at: at)
        case 5: bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        default: bytes = Array(#"{"id":"r","op":"topics.subscribe","topic":"t","tokens":["a"],"unknown":1}"#.utf8)
        }
        append(bytes, to: partition)
        try deliverNext(partition)
    }

    /// Delivers the next unread record of `partition` to the machine, as the consumer would: not
    /// while the partition is paused or unassigned, nor while the machine holds reads.
    private mutating func deliverNext(_ partition: KafkaTopicPartition) throws {
        guard !stopping, let log = logs[partition], log.assigned, !log.paused, !machine.readsHeld, log.readPosition < Int64(log.records.count) else { return }
        let offset = log.readPosition
        logs[partition]!.readPosition += 1
        let bytes = log.records[Int(offset)]
        let record = KafkaRecord(
            topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: bytes, timestamp: log.stamps[Int(offset)])
        let read = machine.recordsRead
        let known = machine.book.handles(in: [partition])
        let decoded = decoder.decode(bytes)
        let actions = machine.received(record, decoded, now: now, date: Date())
        guard machine.recordsRead == read + 1 else {
            throw violation("record \(partition) offset \(offset) ignored, though never delivered in this assignment")
        }
        // Admitted: the one handle of the partition the machine did not hold before.
        let added = machine.book.handles(in: [partition]).subtracting(known)
        if let handle = added.first, case .success(let request) = decoded {
            guard added.count == 1 else { throw violation("one record admitted as \(added.count) requests") }
            admitted[handle] = Admitted(id: request.id, items: request.items.count, request: request, producedAt: record.timestamp)
            handleByID[request.id] = handle
        } else if case .success(let request) = decoded,
            actions.contains(where: { if case .publish(let p) = $0 { p.outcome.requestID == request.id && p.outcome.status == .cancelled } else { false } })
        {
            cancelledOnArrival[request.id] = Admitted(id: request.id, items: request.items.count, request: request, producedAt: record.timestamp)
        }
        try perform(actions)
    }

    private mutating func answerOne(healthy: Bool) throws {
        guard !running.isEmpty else { return }
        let ids = running.keys.sorted()
        let id = ids[Int(random.next() % UInt64(ids.count))]
        let job = running.removeValue(forKey: id)!
        let api = job.op.api(on: configuration.topicBackend)
        let answer = healthy ? backend.healthy(job, api: api) : backend.answer(job, api: api)
        if !healthy, random.next() % 10 == 0 { now += .milliseconds(Int64(random.next() % 2_000)) }
        // Each item's code in this answer, at its own position in the call.
        let codes = Self.codes(of: answer, count: job.items.count)
        for run in job.origins.runs where admitted[run.request] != nil {
            for (index, position) in zip(run.indexes, run.positions) { admitted[run.request]!.lastCodes[index] = codes[position] }
        }
        try perform(machine.callFinished(id, of: api, answer, now: now, date: Date()))
    }

    /// The code each item of a call of `count` items gets from `answer`: its own entry, `INTERNAL`
    /// for an entry the answer lacks, or the failure's code for every item.
    private static func codes(of answer: CallAnswer, count: Int) -> [ResultCode] {
        switch answer {
        case .items(let answers): (0..<count).map { $0 < answers.count ? answers[$0].result.code : .internal }
        case .failed(let error, _): Array(repeating: error.resultCode, count: count)
        }
    }

    private mutating func advance(jump: Bool) throws {
        if jump {
            now += .milliseconds(Int64(random.next() % 60_000))
        } else if let next = [timer, hold].compactMap({ $0 }).min() {
            now = max(now, next)
        } else {
            now += .milliseconds(Int64(random.next() % 1_000))
        }
        if let due = hold, due <= now {
            hold = nil
            try perform(machine.holdExpired(now: now))
        }
        if let due = timer, due <= now { timer = nil }
        try perform(machine.timerFired(now: now, date: Date()))
    }

    private mutating func acknowledgeOne() throws {
        guard !pending.isEmpty else { return }
        let publication = pending.remove(at: Int(random.next() % UInt64(pending.count)))
        let ticket = publication.ticket
        if logs[ticket.partition]?.generation == ticket.generation { logs[ticket.partition]!.acknowledged.insert(ticket.offset) }
        try perform(machine.published(publication, .delivered, now: now, date: Date()))
    }

    private mutating func revokeAndReassign() throws {
        let partition = partitions[Int(random.next() % 2)]
        let lost = random.next() % 3 == 0
        let revoked = machine.book.handles(in: [partition])
        let (_, started) = machine.revokeStarted([partition], lost: lost, now: now, date: Date())
        try perform(started)
        // The drain is not waited for (as when it times out): what is done is stored, the rest
        // abandoned.
        try perform(machine.revokeFinished([partition], lost: lost, now: now))
        logs[partition]!.assigned = false
        for handle in revoked { admitted[handle] = nil }
        // The partition comes back at once (a rebalance storm): read again from the commit.
        logs[partition]!.paused = false
        logs[partition]!.assigned = true
        try perform(machine.assigned([partition]))
        logs[partition]!.generation = machine.book.generation(of: partition)
        logs[partition]!.readPosition = logs[partition]!.committed
        logs[partition]!.acknowledged = []
    }

    private mutating func changeSettings() throws {
        controls += 1
        let concurrency = Int(1 + random.next() % 8)
        operatorPaused = random.next() % 4 == 0
        var overrides: [ControlKey: ControlValue] = [.concurrency: .count(concurrency), .paused: .flag(operatorPaused)]
        if random.next() % 3 == 0 { overrides[.maxInFlightItems] = .count(Int(10 + random.next() % 3_000)) }
        let document = ControlDocument(version: controls, updatedAt: Date(), updatedBy: "simulation", reason: "step \(steps)", overrides: overrides)
        configuration.concurrency = concurrency
        // Now and then a cancel of a batch (or of a request id), bounded at the simulated now.
        if random.next() % 4 == 0 {
            let byID = random.next() % 4 == 0 && nextRequest > 0
            cancels.append(
                ControlCancel(
                    pipeline: configuration.name, batch: byID ? nil : randomBatch(), requestID: byID ? "r\(1 + random.next() % UInt64(nextRequest))" : nil,
                    producedBefore: simulatedDate, version: cancels.count + 1, updatedAt: simulatedDate, updatedBy: "simulation",
                    reason: "step \(steps)", tag: "c\(cancels.count + 1)"))
        }
        try perform(machine.apply(ControlledSettings(file: machine.configuration, all: nil, own: document, cancels: cancels), now: now, date: Date()))
    }

    // MARK: - Actions and invariants

    /// Performs `actions` as the worker does, checking each.
    private mutating func perform(_ actions: [WorkerAction]) throws {
        for action in actions {
            switch action {
            case .startCall(let job):
                guard !stopped else { throw violation("call \(job.id) started after the stop finished") }
                guard job.api == job.op.api(on: configuration.topicBackend) else {
                    throw violation("call \(job.id) of \(job.op) calls \(job.api), not \(job.op.api(on: configuration.topicBackend))")
                }
                guard running[job.id] == nil else { throw violation("call \(job.id) started while a call with the same id is running") }
                guard running.count < configuration.concurrency else {
                    throw violation("call \(job.id) started with \(running.count) running, concurrency \(configuration.concurrency)")
                }
                // Per API: under its concurrency limit (rate × latency), which is never above the cap.
                let api = job.op.api(on: configuration.topicBackend)
                let ofAPI = running.values.count { $0.op.api(on: configuration.topicBackend) == api }
                let limit = machine.dispatch.concurrencyLimits[api] ?? configuration.concurrency
                guard limit <= configuration.concurrency, ofAPI < limit else {
                    throw violation(
                        "call \(job.id) of \(api) started with \(ofAPI) of its calls running, its limit \(limit), the cap \(configuration.concurrency)")
                }
                guard !operatorPaused else { throw violation("call \(job.id) started while the operator paused the pipeline") }
                // A request no call has carried yet is never called once a cancel matches it.
                for run in job.origins.runs {
                    guard let request = admitted[run.request] else { continue }
                    if request.calls == 0, let cancel = cancels.first(where: { $0.matches(request.request, producedAt: request.producedAt) }) {
                        throw violation("call \(job.id) carries request \(request.id), which \(cancel) cancelled before any call")
                    }
                }
                // Each item is the request's own item at the index its origin names, for the request's op and target.
                for run in job.origins.runs {
                    guard let request = admitted[run.request]?.request else { continue }
                    guard job.op == request.op, job.target == request.target else {
                        throw violation("call \(job.id) of \(job.op) \(job.target) carries items of \(request.id), a \(request.op) of \(request.target)")
                    }
                    for (index, position) in zip(run.indexes, run.positions) where job.items[position] != request.items[index] {
                        throw violation(
                            "call \(job.id) carries '\(job.items[position])' at \(position) as item \(index) of \(request.id), which is '\(request.items[index])'"
                        )
                    }
                }
                for handle in Set(job.origins.runs.map(\.request)) where admitted[handle] != nil { admitted[handle]!.calls += 1 }
                for run in job.origins.runs where admitted[run.request]?.published == true {
                    throw violation("call \(job.id) carries items \(run.indexes) of request \(admitted[run.request]!.id), already published")
                }
                guard job.items.count == job.origins.count, job.items.count > 0,
                    job.items.count <= configuration.itemsPerCall(job.op)
                else { throw violation("call \(job.id) of \(job.op) carries \(job.items.count) items, \(job.origins.count) origins") }
                running[job.id] = job
            case .publish(let publication):
                guard !stopped else { throw violation("\(publication.outcome.requestID) published after the stop finished") }
                try published(publication)
            case .storeOffsets(let offsets):
                for (partition, offset) in offsets { try commit(partition, offset) }
            case .setTimer(let instant):
                guard instant <= now + longestWait + .milliseconds(1) else {
                    throw violation("a timer set \(instant - now) ahead, past the longest wait \(longestWait)")
                }
                timer = instant
            case .holdReads(let deadline):
                guard deadline <= now + ReadGate.holdLimit else { throw violation("reads held \(deadline - now), past \(ReadGate.holdLimit)") }
                hold = deadline
            case .releaseReads:
                hold = nil
            case .wakeReader:
                break
            case .pausePartitions(let paused), .resumePartitions(let paused):
                let pausing = if case .pausePartitions = action { true } else { false }
                guard pausing || !stopping else { throw violation("\(paused) resumed after the stop began") }
                for partition in paused {
                    guard logs[partition]?.assigned == true || !pausing else { throw violation("\(partition) paused while not assigned") }
                    logs[partition]?.paused = pausing
                }
            case .drainEnded:
                throw violation("a drain ended that the simulation never began")
            case .requestLatency(let latency):
                guard latency >= .zero else { throw violation("a request's latency \(latency) is negative") }
            case .log:
                break
            case .fail(let error):
                // Only an outcome the broker refused for good, which `stop()` makes, fails the worker.
                guard stopping, failedItself == nil, case .publish = error else { throw violation("the worker stopped itself: \(error)") }
                failedItself = error
            }
        }
        try checkLiveness()
    }

    /// A request's outcome: exactly once per admission, counting each item once, by the code of
    /// the last answer that carried it.
    private mutating func published(_ publication: Publication) throws {
        defer { pending.append(publication) }
        let outcome = publication.outcome
        if outcome.status == .rejected {
            // A request the machine admitted is never rejected: only records it turned away are.
            // Another record of an id in flight is turned away as a duplicate (a mangled record
            // may carry an admitted id: seed 1920), and its dead letter says so.
            if publication.deadLetter?.kind != .duplicate, let handle = handleByID[outcome.requestID], admitted[handle]?.published == false {
                throw violation("\(outcome.requestID), admitted, was published as rejected: \(outcome.reason ?? "no reason")")
            }
            return
        }
        if outcome.status == .cancelled, let request = cancelledOnArrival.removeValue(forKey: outcome.requestID) {
            guard let cancel = cancels.first(where: { $0.matches(request.request, producedAt: request.producedAt) }) else {
                throw violation("\(request.id) cancelled on arrival, though no cancel in force matches it")
            }
            guard outcome.counts == [Outcome.cancelledItems: request.items], publication.deadLetter == nil else {
                throw violation("\(request.id) cancelled by \(cancel) counts \(outcome.counts)")
            }
            return
        }
        guard let handle = handleByID[outcome.requestID] else { throw violation("an outcome of \(outcome.requestID), a request never admitted") }
        guard let request = admitted[handle] else { throw violation("an outcome of \(outcome.requestID) after its partition was revoked") }
        guard !request.published else { throw violation("request \(request.id) published twice") }
        admitted[handle]!.published = true
        // Cancelled: no call ever carried it, a cancel in force matches it, every item counted so.
        let cancel = cancels.first { $0.matches(request.request, producedAt: request.producedAt) }
        guard outcome.status != .cancelled else {
            guard request.calls == 0, cancel != nil, outcome.counts == [Outcome.cancelledItems: request.items], publication.deadLetter == nil else {
                let by = cancel.map(\.description) ?? "no cancel"
                throw violation("\(request.id) cancelled after \(request.calls) calls, matched by \(by): \(outcome.counts)")
            }
            return
        }
        guard request.calls > 0 || cancel == nil else {
            throw violation("\(request.id) published \(outcome.status), though \(cancel!) matched it before any call")
        }
        let counted = outcome.counts.values.reduce(0, +)
        guard counted == request.items, request.lastCodes.count == request.items else {
            throw violation("outcome of \(request.id) counts \(counted) items; \(request.lastCodes.count) of its \(request.items) were answered")
        }
        var expected: [String: Int] = [:]
        for code in request.lastCodes.values { expected[code.rawValue, default: 0] += 1 }
        // Each failed item by its own index and code, not only the totals.
        for failed in outcome.failedItems where request.lastCodes[failed.index] != failed.code || failed.item != request.request.items[failed.index] {
            let last = request.lastCodes[failed.index].map(\.rawValue) ?? "none"
            throw violation("item \(failed.index) of \(request.id) reported \(failed.item) \(failed.code), its last answer \(last)")
        }
        // An erasure receipt names every item in order, each with its last answer's code.
        if let receipt = outcome.receipt {
            guard receipt.count == request.items else { throw violation("receipt of \(request.id) lists \(receipt.count) of \(request.items) items") }
            for (index, line) in receipt.enumerated() where line.item != request.request.items[index] || line.code != request.lastCodes[index] {
                throw violation(
                    "receipt line \(index) of \(request.id) says \(line.item) \(line.code); the item is \(request.request.items[index]), its last answer \(request.lastCodes[index].map(\.rawValue) ?? "none")"
                )
            }
        } else if request.request.op == .installationsDelete, outcome.reason == nil {
            throw violation("deletion \(request.id) published \(outcome.status) without its erasure receipt")
        }
        // The healthy backend's new work, after the chaos: nothing of it may fail.
        if request.id.hasPrefix("heal-"), outcome.status != .succeeded {
            throw violation("\(request.id), sent to the healed backend, ended \(outcome.status): \(outcome.counts)")
        }
        guard expected == outcome.counts else {
            throw violation("outcome of \(request.id) counts \(outcome.counts.sorted { $0.key < $1.key }), its answers \(expected.sorted { $0.key < $1.key })")
        }
    }

    /// The store point never passes a record whose outcome is not acknowledged, and never moves back.
    private mutating func commit(_ partition: KafkaTopicPartition, _ offset: Int64) throws {
        let log = logs[partition]!
        guard offset > log.committed || offset == log.committed else { throw violation("\(partition) commit moved back to \(offset)") }
        for earlier in log.committed..<offset where !log.acknowledged.contains(earlier) {
            throw violation("\(partition) store point \(offset) passes offset \(earlier), whose outcome is not acknowledged")
        }
        logs[partition]!.committed = offset
    }

    /// Waiting work always has a way forward: a running call, a timer, or the operator's pause
    /// (once the stop finished, none: it is delivered again after the restart); and a key is held
    /// exactly by the jobs running, waiting to retry or backing off.
    private func checkLiveness() throws {
        let misheld = machine.dispatch.misheldKeys
        guard misheld.isEmpty else { throw violation("keys held by no job or by too few: \(misheld)") }
        guard machine.dispatch.hasWaitingWork, running.isEmpty, !operatorPaused, !stopped else { return }
        guard timer != nil else {
            throw violation("work is waiting, nothing runs, and no timer is set (\(unfinished))")
        }
    }

    // MARK: - Helpers

    private mutating func newRequest() -> PipelineRequest {
        var request = newRequestOfSomeOp()
        request.batch = randomBatch()
        return request
    }

    private mutating func newRequestOfSomeOp() -> PipelineRequest {
        nextRequest += 1
        let id = "r\(nextRequest)"
        func items(_ count: Int, _ make: (Int) -> String) -> [String] { (0..<count).map(make) }
        switch random.next() % 10 {
        case 0, 1:
            return PipelineRequest(
                id: id, op: .installationsDelete, target: .subject("s\(random.next() % 5)"),
                items: items(Int(1 + random.next() % 4)) { index in
                    switch random.next() % 12 {
                    case 0, 1: "\(SimulatedBackend.foreignPrefix)-\(id)-\(index)"
                    case 2: "\(SimulatedBackend.stuckPrefix)-\(id)-\(index)"
                    default: "fid-\(id)-\(index)"
                    }
                })
        case 2, 3, 4:
            let count = random.next() % 16 == 0 ? Int(1 + random.next() % 1_500) : Int(1 + random.next() % 40)
            return PipelineRequest(
                id: id, op: random.next() % 3 == 0 ? .topicsUnsubscribe : .topicsSubscribe, target: .topic("t\(random.next() % 3)"),
                items: items(count) { "tok-\(id)-\($0)" })
        case 5:
            return PipelineRequest(
                id: id, op: .apnsImport, target: .apns(application: "com.example", sandbox: false), items: items(Int(1 + random.next() % 250)) { "apns\($0)" })
        case 6:
            return PipelineRequest(
                id: id, op: .instancesInfo, target: .info(details: random.next() % 2 == 0),
                items: items(Int(1 + random.next() % 3)) { random.next() % 6 == 0 ? "\(SimulatedBackend.foreignPrefix)-\(id)-\($0)" : "tok-\(id)-\($0)" })
        default:
            let op: RequestOp = [.groupsCreate, .groupsAdd, .groupsRemove][Int(random.next() % 3)]
            return PipelineRequest(
                id: id, op: op, target: .group(name: "g\(random.next() % 3)", key: op == .groupsCreate ? nil : "key"),
                items: items(Int(1 + random.next() % 45)) { "tok-\(id)-\($0)" })
        }
    }

    /// The simulated wall clock: the time records are produced and cancels bounded at.
    private var simulatedDate: Date { Date(timeIntervalSince1970: 1_800_000_000 + Double((now - startedAt).components.seconds)) }

    /// Appends a record of `bytes` to `partition`'s log, produced now.
    private mutating func append(_ bytes: [UInt8], to partition: KafkaTopicPartition) {
        logs[partition]!.records.append(bytes)
        logs[partition]!.stamps.append(simulatedDate)
    }

    /// One of three batches, or none.
    private mutating func randomBatch() -> String? {
        let pick = random.next() % 4
        return pick == 3 ? nil : "b\(pick)"
    }

    private func hasUnread(_ partition: KafkaTopicPartition) -> Bool {
        guard let log = logs[partition], log.assigned else { return false }
        return log.readPosition < Int64(log.records.count)
    }

    private var isDone: Bool {
        running.isEmpty && pending.isEmpty && !machine.dispatch.hasWaitingWork
            && partitions.allSatisfy { partition in
                let log = logs[partition]!
                return log.committed == Int64(log.records.count)
            }
    }

    private var unfinished: String {
        let open = admitted.values.filter { !$0.published }.map(\.id).sorted().prefix(5)
        let commits = partitions.map { "\($0.partition): committed \(logs[$0]!.committed) of \(logs[$0]!.records.count)" }
        return "\(running.count) running, \(pending.count) unacknowledged, unsettled requests \(Array(open)), \(commits.joined(separator: ", "))"
            + ", breaker closed: \(machine.dispatch.breakerClosed), partitions paused: \(machine.consumerPaused), reads held: \(machine.readsHeld)"
            + ", held \(machine.book.held) of \(machine.book.bound), \(machine.book.requestsInFlight) requests in flight"
    }

    private func violation(_ message: String) -> SimulationViolation {
        SimulationViolation(step: steps, at: now - startedAt, message: message)
    }
}

/// An invariant the simulation found broken.
struct SimulationViolation: Error, CustomStringConvertible {
    var step: Int
    var at: Duration
    var message: String

    var description: String { "step \(step), \(at) in: \(message)" }
}
