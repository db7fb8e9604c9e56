import Foundation
import InstanceAPI
import Kafka

@testable import Pipeline

/// The worker's machines (`RequestBook` with its `OffsetTracker`, and `DispatchMachine`) driven
/// as the worker drives them, by one seeded random sequence of events: records arriving on two
/// partitions (requests, and bytes an adversary chose, through the real `RequestDecoder`), calls answered with anything `SimulatedBackend` can say, timers, clock jumps,
/// acknowledgements in any order, revokes and reassignments that deliver again from the committed
/// offset, and operator changes (concurrency, pause). After every step it checks the invariants
/// and throws a `SimulationViolation` naming the first one broken.
///
/// A run has two phases: `chaos(steps:)`, then `heal()`, in which the backend answers healthily
/// (but for ids of another project, and stuck ids that fail the same way for good), new work keeps
/// arriving and the operator resumes: everything read must then be published and committed within
/// a bounded simulated time, or the run stalled.
struct WorkerSimulation {
    /// What the simulation knows of a request the book admitted.
    private struct Admitted {
        var id: String
        var items: Int
        var settled: Set<Int> = []
        var published = false
    }

    /// One partition's log, read position and commits, as the consumer and broker would keep them.
    private struct PartitionLog {
        var records: [[UInt8]] = []
        var readPosition: Int64 = 0
        var committed: Int64 = 0
        var generation: AssignmentGeneration?
        var acknowledged: Set<Int64> = []
        var assigned = true
    }

    private let partitions = [KafkaTopicPartition(topic: "requests", partition: 0), KafkaTopicPartition(topic: "requests", partition: 1)]
    private var configuration: PipelineConfiguration
    private let decoder: RequestDecoder
    private var book: RequestBook
    private var dispatch: DispatchMachine
    private var backend: SimulatedBackend
    private var random: SplitMix64
    private var now: ContinuousClock.Instant
    private let startedAt: ContinuousClock.Instant
    private var timer: ContinuousClock.Instant?
    private var running: [Int: CallJob] = [:]
    private var admitted: [RequestHandle: Admitted] = [:]
    private var handleByID: [String: RequestHandle] = [:]
    private var pending: [Publication] = []
    private var logs: [KafkaTopicPartition: PartitionLog] = [:]
    private var outagePaused = false
    private var operatorPaused = false
    private var nextRequest = 0
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
        self.configuration = configuration
        self.decoder = RequestDecoder(configuration: configuration)
        self.book = RequestBook(maxInFlightItems: 1_000_000, maxInFlightBytes: 1 << 40)
        self.dispatch = DispatchMachine(configuration: configuration, random: SplitMix64(seed: random.next()))
        self.backend = SimulatedBackend(random: SplitMix64(seed: random.next()))
        self.random = random
        self.now = ContinuousClock.now
        self.startedAt = now
        self.longestWait = max(
            configuration.linger, configuration.retry.maxBackoff, configuration.breakerMaxCooldown, .seconds(1.0 / configuration.adaptiveRate.floor))
        let generation = book.assign(partitions)
        for partition in partitions { logs[partition] = PartitionLog(generation: generation) }
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
        if operatorPaused {
            operatorPaused = false
            try perform(dispatch.reconfigure(configuration, paused: false, now: now), finishing: nil)
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
                let request = PipelineRequest(id: "heal-\(arrivals)", op: .installationsDelete, target: .subject(nil), items: ["fid-heal-\(arrivals)"])
                logs[partitions[arrivals % 2]]!.records.append(Array(request.jsonBody()))
            }
            var choices: [Int] = []
            if !running.isEmpty { choices.append(0) }
            if !pending.isEmpty { choices.append(1) }
            if !outagePaused, partitions.contains(where: { hasUnread($0) }) { choices.append(2) }
            if choices.isEmpty {
                guard timer != nil else {
                    throw violation("stalled: nothing running, nothing to acknowledge, no timer set, and \(unfinished)")
                }
                try advance(jump: false)
                continue
            }
            switch choices[Int(random.next() % UInt64(choices.count))] {
            case 0: try answerOne(healthy: true)
            case 1: try acknowledgeOne()
            default: try deliverNext(partitions.first { hasUnread($0) }!)
            }
        }
    }

    // MARK: - Events

    private mutating func arrive() throws {
        guard !outagePaused else { return }
        let partition = partitions[Int(random.next() % 2)]
        if !hasUnread(partition) || random.next() % 3 != 0 { logs[partition]!.records.append(Array(newRequest().jsonBody())) }
        try deliverNext(partition)
    }

    /// A record whose bytes an adversary chose: a request mangled (a byte flipped, cut short, a
    /// second `op`, an id of 5,000 bytes, a byte that is not UTF-8), or noise.
    private mutating func arriveHostile() throws {
        guard !outagePaused else { return }
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
        logs[partition]!.records.append(bytes)
        try deliverNext(partition)
    }

    /// Delivers the next unread record of `partition` to the book and the dispatcher.
    private mutating func deliverNext(_ partition: KafkaTopicPartition) throws {
        guard let log = logs[partition], log.assigned, log.readPosition < Int64(log.records.count) else { return }
        let offset = log.readPosition
        logs[partition]!.readPosition += 1
        let bytes = log.records[Int(offset)]
        let record = KafkaRecord(topic: partition.topic, partition: partition.partition, offset: offset, key: nil, value: bytes)
        switch book.receive(record, decoder.decode(bytes), at: Date()) {
        case .ignored:
            throw violation("record \(partition) offset \(offset) ignored, though never delivered in this assignment")
        case .rejected(let publication):
            pending.append(publication)
        case .admitted(let handle, let request):
            admitted[handle] = Admitted(id: request.id, items: request.items.count)
            handleByID[request.id] = handle
            try perform(dispatch.add(request, handle: handle, now: now), finishing: nil)
        }
    }

    private mutating func answerOne(healthy: Bool) throws {
        guard !running.isEmpty else { return }
        let ids = running.keys.sorted()
        let id = ids[Int(random.next() % UInt64(ids.count))]
        let job = running.removeValue(forKey: id)!
        let api = job.op.api(on: configuration.topicBackend)
        let answer = healthy ? backend.healthy(job, api: api) : backend.answer(job, api: api)
        if !healthy, random.next() % 10 == 0 { now += .milliseconds(Int64(random.next() % 2_000)) }
        try perform(dispatch.finished(jobID: id, answer, now: now), finishing: (job, Self.codes(of: answer, count: job.items.count)))
    }

    /// The code each item of a call of `count` items gets from `answer`: its own entry, `INTERNAL`
    /// for an entry the answer lacks, or the failure's code for every item.
    private static func codes(of answer: CallAnswer, count: Int) -> [ResultCode] {
        switch answer {
        case .items(let answers): (0..<count).map { $0 < answers.count ? answers[$0].result.code : .internal }
        case .failed(let error): Array(repeating: error.resultCode, count: count)
        }
    }

    private mutating func advance(jump: Bool) throws {
        if jump {
            now += .milliseconds(Int64(random.next() % 60_000))
        } else if let timer {
            now = max(now, timer)
        } else {
            now += .milliseconds(Int64(random.next() % 1_000))
        }
        if let due = timer, due <= now { timer = nil }
        try perform(dispatch.timerFired(now: now), finishing: nil)
    }

    private mutating func acknowledgeOne() throws {
        guard !pending.isEmpty else { return }
        let publication = pending.remove(at: Int(random.next() % UInt64(pending.count)))
        let ticket = publication.ticket
        if logs[ticket.partition]?.generation == ticket.generation { logs[ticket.partition]!.acknowledged.insert(ticket.offset) }
        for (partition, offset) in book.published(ticket) { try commit(partition, offset) }
    }

    private mutating func revokeAndReassign() throws {
        let partition = partitions[Int(random.next() % 2)]
        let handles = book.revoke([partition])
        logs[partition]!.assigned = false
        for handle in handles { admitted[handle] = nil }
        try perform(dispatch.drop(handles, now: now), finishing: nil)
        // The partition comes back at once (a rebalance storm): read again from the commit.
        let generation = book.assign([partition])
        logs[partition]!.generation = generation
        logs[partition]!.assigned = true
        logs[partition]!.readPosition = logs[partition]!.committed
        logs[partition]!.acknowledged = []
    }

    private mutating func changeSettings() throws {
        var changed = configuration
        changed.concurrency = Int(1 + random.next() % 8)
        operatorPaused = random.next() % 4 == 0
        configuration = changed
        try perform(dispatch.reconfigure(changed, paused: operatorPaused, now: now), finishing: nil)
    }

    // MARK: - Actions and invariants

    /// Performs `actions` as the worker does, checking each; `finishing` is the call whose answer
    /// produced them, if any.
    private mutating func perform(_ actions: [DispatchAction], finishing call: (job: CallJob, codes: [ResultCode])?) throws {
        for action in actions {
            switch action {
            case .start(let job):
                guard running[job.id] == nil else { throw violation("call \(job.id) started while a call with the same id is running") }
                guard running.count < configuration.concurrency else {
                    throw violation("call \(job.id) started with \(running.count) running, concurrency \(configuration.concurrency)")
                }
                // Per API: under its concurrency limit (rate × latency), which is never above the cap.
                let api = job.op.api(on: configuration.topicBackend)
                let ofAPI = running.values.count { $0.op.api(on: configuration.topicBackend) == api }
                let limit = dispatch.concurrencyLimits[api] ?? configuration.concurrency
                guard limit <= configuration.concurrency, ofAPI < limit else {
                    throw violation(
                        "call \(job.id) of \(api) started with \(ofAPI) of its calls running, its limit \(limit), the cap \(configuration.concurrency)")
                }
                guard !operatorPaused else { throw violation("call \(job.id) started while the operator paused the pipeline") }
                guard job.items.count == job.origins.count, job.items.count > 0,
                    job.items.count <= configuration.itemsPerCall(job.op)
                else { throw violation("call \(job.id) of \(job.op) carries \(job.items.count) items, \(job.origins.count) origins") }
                running[job.id] = job
                book.noteCall(for: job.origins.runs.map(\.request))
            case .settle(let settlements):
                try settle(settlements, from: call)
            case .pauseForOutage(let paused):
                outagePaused = paused
            case .breakerOpened:
                break
            case .setTimer(let instant):
                guard instant <= now + longestWait + .milliseconds(1) else {
                    throw violation("a timer set \(instant - now) ahead, past the longest wait \(longestWait)")
                }
                timer = instant
            }
        }
        try checkLiveness()
    }

    private mutating func settle(_ settlements: [ItemSettlement], from answered: (job: CallJob, codes: [ResultCode])?) throws {
        guard let (call, codes) = answered else { throw violation("items settled without an answer") }
        for settlement in settlements {
            let handle = settlement.origin.request
            var carried = 0
            for run in call.origins.runs where run.request == handle {
                let lower = max(run.indexes.lowerBound, settlement.indexes.lowerBound)
                let upper = min(run.indexes.upperBound, settlement.indexes.upperBound)
                guard lower < upper else { continue }
                let overlap = lower..<upper
                carried += overlap.count
                // Each item ends with its own answer's code, at its own position in the call.
                for index in overlap where codes[run.positions.lowerBound + index - run.indexes.lowerBound] != settlement.answer.result.code {
                    let position = run.positions.lowerBound + index - run.indexes.lowerBound
                    throw violation(
                        "item \(index) of request \(handle) settled \(settlement.answer.result.code), its answer in call \(call.id) was \(codes[position])")
                }
            }
            guard carried == settlement.count else {
                throw violation("items \(settlement.indexes) of request \(handle) settled by the answer of call \(call.id), which carried \(carried) of them")
            }
            for index in settlement.indexes {
                guard admitted[handle] != nil else { continue }  // revoked meanwhile: the book ignores it
                guard admitted[handle]!.settled.insert(index).inserted else {
                    throw violation("item \(index) of request \(handle) settled twice")
                }
            }
        }
        let publications = book.settle(settlements, at: Date())
        let completedIDs = Set(publications.map(\.outcome.requestID))
        for handle in Set(settlements.map(\.origin.request)) {
            guard let request = admitted[handle], !request.published else { continue }
            let complete = request.settled.count == request.items
            guard complete == completedIDs.contains(request.id) else {
                throw violation("request \(request.id): \(request.settled.count) of \(request.items) items settled, outcome published: \(!complete)")
            }
            if complete { admitted[handle]!.published = true }
        }
        for publication in publications {
            let counted = publication.outcome.counts.values.reduce(0, +)
            guard let handle = handleByID[publication.outcome.requestID], counted == admitted[handle]?.items else {
                throw violation("outcome of \(publication.outcome.requestID) counts \(counted) items")
            }
        }
        pending += publications
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

    /// Waiting work always has a way forward: a running call, a timer, or the operator's pause;
    /// and a key is held exactly by the jobs running, waiting to retry or backing off.
    private func checkLiveness() throws {
        let misheld = dispatch.misheldKeys
        guard misheld.isEmpty else { throw violation("keys held by no job or by too few: \(misheld)") }
        guard dispatch.hasWaitingWork, running.isEmpty, !operatorPaused else { return }
        guard timer != nil else {
            throw violation("work is waiting, nothing runs, and no timer is set (\(unfinished))")
        }
    }

    // MARK: - Helpers

    private mutating func newRequest() -> PipelineRequest {
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

    private func hasUnread(_ partition: KafkaTopicPartition) -> Bool {
        guard let log = logs[partition], log.assigned else { return false }
        return log.readPosition < Int64(log.records.count)
    }

    private var isDone: Bool {
        running.isEmpty && pending.isEmpty && !dispatch.hasWaitingWork
            && partitions.allSatisfy { partition in
                let log = logs[partition]!
                return log.committed == Int64(log.records.count)
            }
    }

    private var unfinished: String {
        let open = admitted.values.filter { !$0.published }.map(\.id).sorted().prefix(5)
        let commits = partitions.map { "\($0.partition): committed \(logs[$0]!.committed) of \(logs[$0]!.records.count)" }
        return "\(running.count) running, \(pending.count) unacknowledged, unsettled requests \(Array(open)), \(commits.joined(separator: ", "))"
            + ", breaker closed: \(dispatch.breakerClosed), paused for an outage: \(outagePaused)"
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
