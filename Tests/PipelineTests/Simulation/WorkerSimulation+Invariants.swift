import Foundation
import InstanceAPI
import Kafka

@testable import Pipeline

/// The simulation's side of the machine's actions, and the invariants checked after each step.
extension WorkerSimulation {
    // MARK: - Actions and invariants

    /// Performs `actions` as the worker does, checking each.
    mutating func perform(_ actions: [WorkerAction]) throws {
        for action in actions {
            switch action {
            case .withdrawCalls(let ids):
                // Only calls that carry a request a revoke abandoned (and every such call, checked
                // once the revoke has finished).
                for id in ids {
                    guard let job = running[id] else { throw violation("withdrew call \(id), which is not running") }
                    guard job.origins.runs.contains(where: { abandoning.contains($0.request) }) else {
                        throw violation("withdrew call \(id), which carries no abandoned request")
                    }
                }
                withdrawn.formUnion(ids)
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
                // A retry reads NOT_FOUND as done only after an attempt that may have taken effect.
                if job.mayHaveTakenEffect, let unseen = job.items.first(where: { !mayHaveTakenEffect.contains($0) }) {
                    throw violation("call \(job.id) of \(job.op) is a retry that may have taken effect, though no attempt of \(unseen) may have")
                }
                // A request abandoned to another worker is never called again here.
                if let run = job.origins.runs.first(where: { abandoning.contains($0.request) }) {
                    throw violation("call \(job.id) carries request \(run.request), abandoned by a revoke")
                }
                // A request no call has carried yet is never called once a cancel matches it.
                for run in job.origins.runs {
                    guard let request = admitted[run.request] else { continue }
                    let cancel = cancels.first { $0.matches(request.request, producedAt: request.producedAt) }
                    if !calledRecords.contains(request.record), let cancel {
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
                for handle in Set(job.origins.runs.map(\.request)) where admitted[handle] != nil {
                    admitted[handle]!.calls += 1
                    calledRecords.insert(admitted[handle]!.record)
                }
                for run in job.origins.runs where admitted[run.request]?.published == true {
                    throw violation("call \(job.id) carries items \(run.indexes) of request \(admitted[run.request]!.id), already published")
                }
                guard job.items.count == job.origins.count, job.items.count > 0,
                    job.items.count <= configuration.itemsPerCall(job.op)
                else { throw violation("call \(job.id) of \(job.op) carries \(job.items.count) items, \(job.origins.count) origins") }
                try checkBreaker(startingJob: job)
                // An operator's rate ceiling holds from the moment it is applied: per API, at most
                // a tenth of a second's calls (at least one) back to back, then its rate. The
                // breaker's probe (the one call it lets through while not closed) skips the rate:
                // it decides whether anything runs.
                if let (rate, since, starts) = ceiling, machine.dispatch.breakerClosed {
                    let count = starts[api, default: 0] + 1
                    let allowed = max(1, rate / 10) + rate * Double((now - since) / .milliseconds(1)) / 1_000
                    guard Double(count) <= allowed + 1e-6 else {
                        throw violation("call \(job.id) is call \(count) of \(api) in \(now - since) under the operator's rate-limit \(rate)/s")
                    }
                    ceiling!.starts[api] = count
                }
                running[job.id] = job
                startedInStep.append(job)
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
                readerParked = false
            case .wakeReader:
                readerParked = false
            case .pausePartitions(let paused), .resumePartitions(let paused):
                let pausing = if case .pausePartitions = action { true } else { false }
                guard pausing || !stopping else { throw violation("\(paused) resumed after the stop began") }
                for partition in paused {
                    guard logs[partition]?.assigned == true || !pausing else { throw violation("\(partition) paused while not assigned") }
                    logs[partition]?.paused = pausing
                }
            case .drainEnded(let id, let drained):
                guard let condition = drainsOpen.removeValue(forKey: id) else { throw violation("drain \(id) ended, which is not open") }
                guard !drained || machine.isDrained(condition) else { throw violation("drain \(id) ended drained, and \(condition) does not hold") }
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
        // Order is checked once every action is performed: an earlier request's outcome may come
        // after the start of the call its settling made possible.
        defer { startedInStep = [] }
        if machine.dispatch.breakerClosed { readPastBound = 0 }
        for job in startedInStep { try checkOrder(of: job) }
        try checkLiveness()
    }

    /// The breaker holds back calls to a backend down for everyone: while it is not closed only
    /// its probe starts, one at a time; in an outage, once the last success is a cooldown past,
    /// it opens after `threshold` failures it counts, so calls started with it closed from then on
    /// are at most that, plus those whose failure may be their own (which it does not count),
    /// plus what runs when it opens.
    mutating func checkBreaker(startingJob job: CallJob) throws {
        if !machine.dispatch.breakerClosed {
            startedWhileOpen.formIntersection(running.keys)
            if let through = startedWhileOpen.first {
                throw violation("call \(job.id) started while the breaker is not closed and call \(through), which it let through, runs")
            }
            startedWhileOpen.insert(job.id)
        } else if var current = outage {
            if let failed = job.systemFailedAt, failed < current.since { current.mayFailAlone += 1 }
            if now >= current.since + configuration.breakerCooldown {
                current.lateStarts += 1
                let bound = configuration.breakerThreshold + current.mayFailAlone + Self.concurrencyCap
                guard current.lateStarts <= bound else {
                    throw violation(
                        "call \(job.id) is the \(current.lateStarts)th started with the breaker closed \(now - current.since) into outage \(current.serial), past \(bound)"
                    )
                }
            }
            outage = current
        }
    }

    /// The key work on which takes effect in arrival order (DESIGN.md, Ordering): a topic's name
    /// for topic changes, a group's name for device-group ops; none for independent work.
    static func orderKey(of request: PipelineRequest) -> String? { orderKey(request.op, request.target) }

    /// The key of work of `op` on `target` (see `orderKey(of:)`).
    static func orderKey(_ op: RequestOp, _ target: RequestTarget) -> String? {
        switch (op, target) {
        case (.topicsSubscribe, .topic(let name)), (.topicsUnsubscribe, .topic(let name)): "topic " + name
        case (.groupsCreate, .group(let name, _)), (.groupsAdd, .group(let name, _)), (.groupsRemove, .group(let name, _)): "group " + name
        default: nil
        }
    }

    /// Whether work of `op` on `target` commutes with work of `other` on `otherTarget` of the same
    /// key: the same topic change of the same topic.
    static func commute(_ op: RequestOp, _ target: RequestTarget, _ other: RequestOp, _ otherTarget: RequestTarget) -> Bool {
        [.topicsSubscribe, .topicsUnsubscribe].contains(op) && other == op && otherTarget == target
    }

    /// Within a partition, work on one key takes effect in offset order even though calls run
    /// concurrently: a call starts only once every request that came before one it carries, from
    /// the same partition and on the same key, is published, unless that request is carried by
    /// this call too or their items commute (the same topic change of the same topic).
    /// A call running on the key holds it too, whether or not its requests are still held (a
    /// call of a revoked partition's request goes on).
    func checkOrder(of job: CallJob) throws {
        if let key = Self.orderKey(job.op, job.target) {
            for other in running.values where other.id != job.id && Self.orderKey(other.op, other.target) == key {
                guard Self.commute(job.op, job.target, other.op, other.target) else {
                    throw violation("call \(job.id) (\(job.op)) started while call \(other.id) (\(other.op)) runs on \(key)")
                }
            }
        }
        let carried = Set(job.origins.runs.map(\.request))
        for handle in carried {
            guard let request = admitted[handle], let key = Self.orderKey(of: request.request) else { continue }
            for earlier in unpublishedByKey[key, default: []] where earlier < handle && !carried.contains(earlier) {
                guard let before = admitted[earlier], before.partition == request.partition else { continue }
                guard Self.commute(job.op, job.target, before.request.op, before.request.target) else {
                    throw violation(
                        "call \(job.id) (\(job.op) of \(request.id)) started while \(before.id), a \(before.request.op) on \(key) before it in \(request.partition), is unpublished"
                    )
                }
            }
        }
    }

    /// A request's outcome: exactly once per admission, counting each item once, by the code of
    /// the last answer that carried it.
    mutating func published(_ publication: Publication) throws {
        defer { pending.append(publication) }
        let outcome = publication.outcome
        try checkWire(of: outcome)
        // Every outcome names the record it answers: the one its ticket acknowledges (for a request,
        // checked below to be its own record's).
        let answered = publication.ticket
        guard outcome.record == RecordPosition(topic: answered.partition.topic, partition: answered.partition.partition, offset: answered.offset) else {
            let named = outcome.record.map(String.init(describing:)) ?? "none"
            throw violation("the outcome of \(outcome.requestID.prefix(40)) names the record \(named), its ticket \(answered)")
        }
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
            guard !calledRecords.contains(request.record) else {
                throw violation("\(request.id) cancelled on arrival at \(request.record), though a call of an earlier delivery of it was started")
            }
            guard outcome.counts == [Outcome.cancelledItems: request.items], publication.deadLetter == nil else {
                throw violation("\(request.id) cancelled by \(cancel) counts \(outcome.counts)")
            }
            return
        }
        guard let handle = handleByID[outcome.requestID] else { throw violation("an outcome of \(outcome.requestID), a request never admitted") }
        guard let request = admitted[handle] else { throw violation("an outcome of \(outcome.requestID) after its partition was revoked") }
        guard !request.published else { throw violation("request \(request.id) published twice") }
        // Its ticket is its own record's: the store point passes that offset once acknowledged,
        // and the in-flight bounds give back what its admission held.
        let ticket = publication.ticket
        guard ticket.partition == request.partition, ticket.offset == request.offset, ticket.generation == request.generation,
            ticket.items == request.items, ticket.bytes == request.recordBytes
        else {
            throw violation(
                "\(request.id), read at \(request.partition) offset \(request.offset) (\(request.items) items, \(request.recordBytes) bytes), published with the ticket \(ticket)"
            )
        }
        admitted[handle]!.published = true
        // Its outcome, which says how its calls went, goes out: a later delivery of its record (read
        // again from behind the store point) may be cancelled, as reconcile keeps the one that called.
        defer { calledRecords.remove(request.record) }
        if let key = Self.orderKey(of: request.request) { unpublishedByKey[key]?.remove(handle) }
        // Cancelled: no call ever carried it, a cancel in force matches it, every item counted so.
        let cancel = cancels.first { $0.matches(request.request, producedAt: request.producedAt) }
        guard outcome.status != .cancelled else {
            guard !calledRecords.contains(request.record), cancel != nil, outcome.counts == [Outcome.cancelledItems: request.items],
                publication.deadLetter == nil
            else {
                let by = cancel.map(\.description) ?? "no cancel"
                throw violation("\(request.id) cancelled after \(request.calls) calls, matched by \(by): \(outcome.counts)")
            }
            return
        }
        guard calledRecords.contains(request.record) || cancel == nil else {
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
        // A backend down for everyone fails no new work: no item of a request read in an outage
        // ends with that outage's answer (DESIGN.md: failures of the whole system are not item
        // failures), unless `max-elapsed` ran out before the breaker opened.
        if let serial = request.admittedInOutage, let admittedAt = request.admittedAt, now - admittedAt < shortestMaxElapsed,
            let index = (0..<request.items).first(where: { request.lastOutage[$0] == serial })
        {
            throw violation(
                "item \(index) of \(request.id), read in outage \(serial), ended \(request.lastCodes[index].map(\.rawValue) ?? "none") with that outage's answer"
            )
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
        // The dead letter: exactly the items whose last code is retryable, in order, as a request
        // that replays (its id, op and target), or none; nothing else leaves for the replay.
        let retryable = (0..<request.items).filter { request.lastCodes[$0]?.isRetryable == true }
        if retryable.isEmpty {
            guard publication.deadLetter == nil else { throw violation("\(request.id) dead-lettered with no retryable item: \(outcome.counts)") }
        } else {
            guard let letter = publication.deadLetter, letter.kind == .retryExhausted, let value = letter.value else {
                throw violation("\(request.id): \(retryable.count) retryable item(s) and no replayable dead letter")
            }
            guard case .success(let replay) = RequestDecoder.unlimited.decode(value) else {
                throw violation("the dead letter of \(request.id) does not decode: \(String(decoding: value, as: UTF8.self).prefix(200))")
            }
            let expectedItems = retryable.map { request.request.items[$0] }
            guard replay.id == request.id, replay.op == request.request.op, replay.target == request.request.target, Array(replay.items) == expectedItems,
                replay.priorAttempts <= PipelineRequest.maxPriorAttempts
            else {
                throw violation("the dead letter of \(request.id) holds \(Array(replay.items).prefix(5)), its retryable items are \(expectedItems.prefix(5))")
            }
        }
        // Each imported APNs token with the registration token its own last answer gave it.
        if request.request.op == .apnsImport {
            var expectedImports: [String: String] = [:]
            for (index, code) in request.lastCodes where code == .ok {
                if let value = request.lastValues[index] { expectedImports[request.request.items[index]] = value }
            }
            guard (outcome.imports ?? [:]) == expectedImports else {
                let wrong = (outcome.imports ?? [:]).filter { expectedImports[$0.key] != $0.value }.prefix(3)
                throw violation("imports of \(request.id) differ from their answers: \(wrong.map { "\($0.key) → \($0.value)" })")
            }
        }
        // The healthy backend's new work, after the chaos: nothing of it may fail.
        if request.id.hasPrefix("heal-"), outcome.status != .succeeded {
            throw violation("\(request.id), sent to the healed backend, ended \(outcome.status): \(outcome.counts)")
        }
        guard expected == outcome.counts else {
            throw violation("outcome of \(request.id) counts \(outcome.counts.sorted { $0.key < $1.key }), its answers \(expected.sorted { $0.key < $1.key })")
        }
    }

    /// Every outcome can be published: its record, as the worker writes it, is within
    /// `max-outcome-bytes` and reads back as the outcome (what may be left out to fit is the
    /// backend's words and topic lists; never an id, a code, a count, a receipt or an import).
    func checkWire(of outcome: Outcome) throws {
        let limit = configuration.maxOutcomeBytes
        let bytes = outcome.wireBytes(limit: limit)
        let id = outcome.requestID.prefix(40)
        guard bytes.count <= limit else { throw violation("the outcome of \(id) is \(bytes.count) bytes, past max-outcome-bytes \(limit)") }
        guard let read = Outcome.read(bytes, using: Outcome.decoder()) else {
            throw violation("the outcome of \(id) does not read back: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        // Instants are written to the millisecond.
        let items = { (outcome: Outcome) in outcome.failedItems.map { "\($0.index) \($0.item) \($0.code)" } }
        let receipt = { (outcome: Outcome) in outcome.receipt?.map { "\($0.item) \($0.code)" } }
        guard read.requestID == outcome.requestID, read.status == outcome.status, read.counts == outcome.counts, items(read) == items(outcome),
            receipt(read) == receipt(outcome), read.imports == outcome.imports, read.batch == outcome.batch, read.op == outcome.op,
            read.record == outcome.record
        else { throw violation("the outcome of \(id) reads back as another: \(String(decoding: bytes.prefix(300), as: UTF8.self))") }
    }

    /// The store point never passes a record whose outcome is not acknowledged, and never moves back.
    mutating func commit(_ partition: KafkaTopicPartition, _ offset: Int64) throws {
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
    func checkLiveness() throws {
        // A drain ends with the event that makes it hold: else the worker waits for its deadline.
        for (id, condition) in drainsOpen where machine.isDrained(condition) {
            throw violation("drain \(id) holds (\(condition)) and has not ended")
        }
        let misheld = machine.dispatch.misheldKeys
        guard misheld.isEmpty else { throw violation("keys held by no job or by too few: \(misheld)") }
        guard machine.dispatch.hasWaitingWork, running.isEmpty, !operatorPaused, !stopped else { return }
        guard timer != nil else {
            throw violation("work is waiting, nothing runs, and no timer is set (\(unfinished))")
        }
    }

    var isDone: Bool {
        running.isEmpty && pending.isEmpty && !machine.dispatch.hasWaitingWork
            && partitions.allSatisfy { partition in
                let log = logs[partition]!
                return log.committed == Int64(log.records.count)
            }
    }

    var unfinished: String {
        let open = admitted.values.filter { !$0.published }.map(\.id).sorted().prefix(5)
        let commits = partitions.map { "\($0.partition): committed \(logs[$0]!.committed) of \(logs[$0]!.records.count)" }
        return "\(running.count) running, \(pending.count) unacknowledged, unsettled requests \(Array(open)), \(commits.joined(separator: ", "))"
            + ", breaker closed: \(machine.dispatch.breakerClosed), partitions paused: \(machine.consumerPaused), reads held: \(machine.readsHeld)"
            + ", held \(machine.book.held) of \(machine.book.bound), \(machine.book.requestsInFlight) requests in flight"
    }

    func violation(_ message: String) -> SimulationViolation {
        SimulationViolation(step: steps, at: now - startedAt, message: message)
    }
}
