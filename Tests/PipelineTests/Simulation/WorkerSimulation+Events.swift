import Foundation
import InstanceAPI
import Kafka

@testable import Pipeline

/// The simulation's events: what the consumer, the backend, the broker, the clock and the
/// operator do to the machine, each one step.
extension WorkerSimulation {
    // MARK: - Events

    mutating func arrive() throws {
        let partition = partitions[Int(random.next() % 2)]
        if !hasUnread(partition) || random.next() % 3 != 0 { append(Array(newRequest().jsonBody()), to: partition) }
        try deliverNext(partition)
    }

    /// A record whose bytes an adversary chose: a request mangled (a byte flipped, cut short, a
    /// second `op`, an id of 5,000 bytes, a byte that is not UTF-8), or noise.
    mutating func arriveHostile() throws {
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
    /// while the partition is paused or unassigned, nor while the reader is parked. The reader
    /// parks when it finds reads held, as the worker's does, and only the machine's
    /// `.releaseReads` or `.wakeReader` wakes it: reads no longer held wake nothing by themselves.
    mutating func deliverNext(_ partition: KafkaTopicPartition) throws {
        if machine.readsHeld { readerParked = true }
        guard !stopping, !readerParked, let log = logs[partition], log.assigned, !log.paused, log.readPosition < Int64(log.records.count) else { return }
        // Bounded memory: at either in-flight bound a record is read only as the breaker's probe
        // (`WorkerMachine.backpressureWaived`): while it is open and only new work could close it,
        // a few per opening.
        let held = machine.book.held
        if held.reaches(machine.book.bound) {
            readPastBound += 1
            guard machine.dispatch.awaitsNewWork, readPastBound <= WorkerMachine.probeRecords else {
                throw violation(
                    "\(partition) read at \(held.items) items and \(held.bytes) bytes held, bound \(machine.book.bound.items) and \(machine.book.bound.bytes) (breaker closed: \(machine.dispatch.breakerClosed), awaiting new work: \(machine.dispatch.awaitsNewWork), \(readPastBound) records past the bound)"
                )
            }
        }
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
            admitted[handle] = Admitted(
                id: request.id, items: request.items.count, request: request, producedAt: record.timestamp, partition: partition, offset: offset,
                generation: log.generation, recordBytes: bytes.count, admittedInOutage: outage?.serial, admittedAt: now)
            if let key = Self.orderKey(of: request) { unpublishedByKey[key, default: []].insert(handle) }
            handleByID[request.id] = handle
        } else if case .success(let request) = decoded,
            actions.contains(where: { if case .publish(let p) = $0 { p.outcome.requestID == request.id && p.outcome.status == .cancelled } else { false } })
        {
            cancelledOnArrival[request.id] = Admitted(
                id: request.id, items: request.items.count, request: request, producedAt: record.timestamp, partition: partition, offset: offset)
        }
        try perform(actions)
    }

    mutating func answerOne(healthy: Bool) throws {
        guard !running.isEmpty else { return }
        let ids = running.keys.sorted()
        let id = ids[Int(random.next() % UInt64(ids.count))]
        let job = running.removeValue(forKey: id)!
        let api = job.op.api(on: configuration.topicBackend)
        let drawn: SimulatedBackend.Drawn
        if withdrawn.remove(id) != nil, random.next() % 2 == 0 {
            // Withdrawn before its request left: not sent.
            drawn = SimulatedBackend.Drawn(answer: .failed(.withdrawn(api: api), changeSent: false), saidDone: Array(repeating: false, count: job.items.count))
        } else if outage != nil || api == downAPI {
            drawn = backend.outage(job, api: api)
            guard case .failed(let error, _) = drawn.answer, error.isOutage else {
                throw violation("an answer of an outage to a call on \(api) read as \(drawn.answer), not an outage of the whole call")
            }
        } else {
            drawn = healthy ? backend.healthy(job, api: api) : backend.answer(job, api: api)
        }
        // As the worker's executor reads it (a retried group removal's NOT_FOUND).
        let answer = CallExecutor.read(drawn.answer, of: job.op, isRetry: job.mayHaveTakenEffect)
        if !healthy, random.next() % 10 == 0 { now += .milliseconds(Int64(random.next() % 2_000)) }
        // Each item's code in this answer, at its own position in the call.
        let codes = Self.codes(of: answer, count: job.items.count)
        // A success only from an answer that said so, whatever its bytes; or a group member not
        // found on a retry after an attempt that may have removed it unseen.
        for (position, code) in codes.enumerated() where code.isSuccess && !drawn.saidDone[position] {
            if code == .alreadyAbsent, job.op == .groupsRemove, mayHaveTakenEffect.contains(job.items[position]) { continue }
            throw violation("item \(job.items[position]) of a call on \(api) read \(code) from an answer that did not say it is done: \(answer)")
        }
        // An attempt that may have been carried out though no answer said so: the whole call's
        // (a timeout, a lost connection, a 5xx), or an item's retryable answer (INTERNAL) other
        // than a throttle.
        switch answer {
        case .failed(_, let changeSent):
            // As the draw knows it, not as the client reads the error.
            if changeSent, drawn.mayHaveBeenCarriedOut { mayHaveTakenEffect.formUnion(job.items) }
        case .items:
            for (position, code) in codes.enumerated() where code.isRetryable && code != .resourceExhausted { mayHaveTakenEffect.insert(job.items[position]) }
        }
        let values = Self.values(of: answer, count: job.items.count)
        for run in job.origins.runs where admitted[run.request] != nil {
            for (index, position) in zip(run.indexes, run.positions) {
                admitted[run.request]!.lastCodes[index] = codes[position]
                admitted[run.request]!.lastValues[index] = values[position]
                admitted[run.request]!.lastOutage[index] = outage?.serial
            }
        }
        try perform(machine.callFinished(id, of: api, answer, now: now, date: Date()))
    }

    /// The code each item of a call of `count` items gets from `answer`: its own entry, `INTERNAL`
    /// for an entry the answer lacks, or the failure's code for every item.
    static func codes(of answer: CallAnswer, count: Int) -> [ResultCode] {
        switch answer {
        case .items(let answers): (0..<count).map { $0 < answers.count ? answers[$0].result.code : .internal }
        case .failed(let error, _): Array(repeating: error.resultCode, count: count)
        }
    }

    /// The value each item of a call of `count` items gets from `answer` (nil without one).
    static func values(of answer: CallAnswer, count: Int) -> [String?] {
        switch answer {
        case .items(let answers): (0..<count).map { $0 < answers.count ? answers[$0].value : nil }
        case .failed: Array(repeating: nil, count: count)
        }
    }

    mutating func advance(jump: Bool) throws {
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
        // The shell's timer fires when due; now and then a stale one fires early (one asked for
        // before a newer), as the shell allows. Fired at every step, it hid a wake the machine
        // forgot to ask for.
        if let due = timer, due <= now {
            timer = nil
            try perform(machine.timerFired(now: now, date: Date()))
        } else if random.next() % 10 == 0 {
            try perform(machine.timerFired(now: now, date: Date()))
        }
    }

    mutating func acknowledgeOne() throws {
        guard !pending.isEmpty else { return }
        let publication = pending.remove(at: Int(random.next() % UInt64(pending.count)))
        let ticket = publication.ticket
        if logs[ticket.partition]?.generation == ticket.generation { logs[ticket.partition]!.acknowledged.insert(ticket.offset) }
        try perform(machine.published(publication, .delivered, now: now, date: Date()))
    }

    mutating func revokeAndReassign() throws {
        let partition = partitions[Int(random.next() % 2)]
        let lost = random.next() % 3 == 0
        let revoked = machine.book.handles(in: [partition])
        let (condition, started) = machine.revokeStarted([partition], lost: lost, now: now, date: Date())
        // From now on nothing of them starts; once the drain ends, no call carrying them sends.
        abandoning.formUnion(revoked)
        try perform(started)
        // Half the time the drain is waited for, as `PipelineWorker.revoke` does: calls, timers
        // and acknowledgements go on until it ends, or its deadline comes (a few steps). Else it
        // is not (as when it times out at once). Then what is done is stored, the rest abandoned.
        if let condition, random.next() % 2 == 0, let drain = machine.beginDrain(condition) {
            drainsOpen[drain] = condition
            for _ in 0..<random.next() % 50 where drainsOpen[drain] != nil {
                steps += 1
                switch random.next() % 3 {
                case 0: try answerOne(healthy: random.next() % 2 == 0)
                case 1: try acknowledgeOne()
                default: try advance(jump: false)
                }
            }
            if drainsOpen.removeValue(forKey: drain) != nil, !machine.expireDrain(drain) {
                throw violation("the revoke's drain \(drain) was still open, but the machine had ended it")
            }
        }
        try perform(machine.revokeFinished([partition], lost: lost, now: now))
        // No request of a call still running with an abandoned request's items is sent from now on.
        let missed = running.filter { id, job in !withdrawn.contains(id) && job.origins.runs.contains { abandoning.contains($0.request) } }
        if let id = missed.keys.min() { throw violation("call \(id) carries an abandoned request and was not withdrawn") }
        logs[partition]!.assigned = false
        for handle in revoked {
            if let request = admitted.removeValue(forKey: handle)?.request, let key = Self.orderKey(of: request) {
                unpublishedByKey[key]?.remove(handle)
            }
        }
        // The partition comes back at once (a rebalance storm): read again from the commit.
        logs[partition]!.paused = false
        logs[partition]!.assigned = true
        try perform(machine.assigned([partition]))
        logs[partition]!.generation = machine.book.generation(of: partition)
        logs[partition]!.readPosition = logs[partition]!.committed
        logs[partition]!.acknowledged = []
    }

    mutating func changeSettings() throws {
        controls += 1
        let concurrency = Int(1 + random.next() % UInt64(Self.concurrencyCap))
        operatorPaused = random.next() % 4 == 0
        var overrides: [ControlKey: ControlValue] = [.concurrency: .count(concurrency), .paused: .flag(operatorPaused)]
        if random.next() % 3 == 0 { overrides[.maxInFlightItems] = .count(Int(10 + random.next() % 3_000)) }
        // Now and then a rate ceiling (down to a call every 2 s) and a retry budget of the
        // operator's; a document without them brings back the file's.
        ceiling = nil
        if random.next() % 4 == 0 {
            let rate = [0.5, 3, 40, 5_000][Int(random.next() % 4)]
            overrides[.rateLimit] = .number(rate)
            longestWait = max(longestWait, .seconds(1 / rate))
            ceiling = (rate, now, [:])
        }
        if random.next() % 4 == 0 { overrides[.retryMaxAttempts] = .count(Int(1 + random.next() % 8)) }
        if random.next() % 4 == 0 {
            let maxElapsed = Duration.milliseconds(Int64(200 + random.next() % 300_000))
            overrides[.retryMaxElapsed] = .duration(maxElapsed)
            shortestMaxElapsed = min(shortestMaxElapsed, maxElapsed)
        }
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
    // MARK: - Helpers

    mutating func newRequest() -> PipelineRequest {
        var request = newRequestOfSomeOp()
        request.batch = randomBatch()
        return request
    }

    mutating func newRequestOfSomeOp() -> PipelineRequest {
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
                items: items(Int(1 + random.next() % (random.next() % 8 == 0 ? 45 : 20))) { "tok-\(id)-\($0)" })
        }
    }

    /// The simulated wall clock: the time records are produced and cancels bounded at.
    var simulatedDate: Date { Date(timeIntervalSince1970: 1_800_000_000 + Double((now - startedAt).components.seconds)) }

    /// Appends a record of `bytes` to `partition`'s log, produced now.
    mutating func append(_ bytes: [UInt8], to partition: KafkaTopicPartition) {
        logs[partition]!.records.append(bytes)
        logs[partition]!.stamps.append(simulatedDate)
    }

    /// One of three batches, or none.
    mutating func randomBatch() -> String? {
        let pick = random.next() % 4
        return pick == 3 ? nil : "b\(pick)"
    }

    func hasUnread(_ partition: KafkaTopicPartition) -> Bool {
        guard let log = logs[partition], log.assigned else { return false }
        return log.readPosition < Int64(log.records.count)
    }
}
