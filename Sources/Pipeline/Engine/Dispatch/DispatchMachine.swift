import HeapModule
import InstanceAPI

/// Every decision about running backend calls, as a pure state machine: planning items into
/// calls, per-key order, concurrency, per-API rate limits and `Retry-After`, the circuit breaker,
/// retries and their budget, and dropping the work of revoked partitions.
///
/// Each event method takes the current instant and returns the actions its shell must perform
/// (`DispatchAction`); the machine never sleeps, spawns or performs I/O, so it is tested alone with
/// an injected clock. Waiting is expressed as one timer: the machine asks for the earliest instant
/// at which anything it waits for (a linger, a backoff, a rate-limit slot, the breaker's cooldown)
/// becomes due, and the shell calls `timerFired` then.
///
/// Guarantees:
/// - At most `concurrency` calls run at once, and per API at most its `ConcurrencyLimit`: enough
///   for its current rate at its observed latency, never above `concurrency`. Per API, calls
///   start no faster than its adaptive rate allows (unpaced until its first throttle, never
///   above `callsPerSecond`), and never before a `Retry-After` the API sent has passed (one sent
///   to a call that fails on its own, while others are answered, holds the API for the first
///   backoff at most, and on its retries only that call).
/// - Only outages count toward the breaker; while it is open (or an operator paused the pipeline)
///   nothing starts, running calls finish, and that time is not charged to any item's
///   `max-elapsed`. When its cooldown ends consumption resumes even with nothing queued, so the
///   next work is the probe; with no work left at all (a revoke or a cancel took it), it closes
///   (`CircuitBreaker.forget`): an open breaker would keep the worker unready. What becomes of a failed call is `FailedCallVerdict`'s: a failure of
///   the whole system is not charged (backed off within `max-elapsed` while the breaker is
///   closed; once it is open, suspect: never the probe while other work waits, and consumption
///   goes on while only suspects wait), unless `APIAnswers` shows it is the call's own (charged,
///   and not counted by the breaker).
/// - New settings (`reconfigure`) take effect at the next start decision: concurrency, the rate
///   ceiling (each API's rate and bucket cut to it at once) and the retry budget.
/// - Items of dropped (revoked) requests never start again: queued and lingering ones are
///   forgotten at once, and those in a running call are settled if final, never retried.
struct DispatchMachine: Sendable {
    private var configuration: PipelineConfiguration
    private(set) var planner: CallPlanner
    private(set) var queue = CallQueue()
    private(set) var breaker: CircuitBreaker
    private(set) var pacing: APIPacing
    private(set) var slots: APISlots
    private var apiAnswers = APIAnswers()
    private(set) var backoffs = Heap<ScheduledRetry>()
    private(set) var running: [Int: RunningCall] = [:]
    private var nextJobID = 0
    private var lingerDue: ContinuousClock.Instant?
    private var timer: ContinuousClock.Instant?
    private var outage = OutageClock()
    private var pausedForOutage = false
    private(set) var stopped = false
    /// An operator paused the pipeline: nothing starts until resumed.
    private(set) var paused = false
    private var random: SplitMix64

    /// A machine for `configuration`'s batching, pacing, retry and breaker settings.
    init(configuration: PipelineConfiguration, random: SplitMix64 = SplitMix64()) {
        self.configuration = configuration
        self.planner = CallPlanner(itemsPerCall: { [configuration] in configuration.itemsPerCall($0) })
        self.pacing = APIPacing(configuration.rateSettings)
        self.slots = APISlots(cap: configuration.concurrency)
        self.breaker = CircuitBreaker(
            threshold: configuration.breakerThreshold, initialCooldown: configuration.breakerCooldown,
            maxCooldown: configuration.breakerMaxCooldown)
        self.random = random
    }

    // MARK: - Events

    /// A request arrived: its items join the planner; full calls are queued at once, partial ones
    /// after `linger`.
    mutating func add(_ request: PipelineRequest, handle: RequestHandle, now: ContinuousClock.Instant) -> [DispatchAction] {
        planner.add(request, handle: handle)
        enqueue(planner.take(flush: false))
        if !planner.isEmpty, lingerDue == nil { lingerDue = now + configuration.linger }
        return pump(now: now)
    }

    /// The attempt `jobID` came back with `answer`.
    mutating func finished(jobID: Int, _ answer: CallAnswer, now: ContinuousClock.Instant) -> [DispatchAction] {
        guard let call = running.removeValue(forKey: jobID) else { return pump(now: now) }
        var actions: [DispatchAction] = []
        var job = call.job
        slots.ended(job.api, startedAt: call.startedAt, answered: answer.wasAnswered, now: now)
        switch answer {
        case .items(let answers):
            breaker.recordSuccess(probe: call.probe, now: now)
            apiAnswers.answered(job.api, at: now)
            // Throttled items are paced, not charged: they go again at the next allowed slot, bounded
            // by max-elapsed only. Every other item is charged the attempt.
            let elapsed = outage.chargedElapsed(job, now: now)
            let split = AnswerSplit(
                call, answers: answers, withinTime: configuration.retry.allowsRetry(attemptsMade: 0, elapsed: elapsed),
                mayRetry: configuration.retry.allowsRetry(attemptsMade: job.attempts + 1, elapsed: elapsed))
            let (retry, paced) = (split.retry, split.paced)
            adapt(call, throttled: split.throttled, now: now)
            if !split.settled.isEmpty { actions.append(.settle(split.settled)) }
            switch (retry.items.isEmpty, paced.items.isEmpty) {
            case (true, true): queue.release(job)
            case (false, true): scheduleBackoff(retry, retryAfter: nil, now: now)
            case (true, false): queue.enqueueRetry(paced)
            case (false, false):
                queue.holdAlso(paced)
                scheduleBackoff(retry, retryAfter: nil, now: now)
                queue.enqueueRetry(paced)
            }
        case .failed(let error, let changeSent):
            // A failure of the whole system that is this job's own is charged, and says nothing to
            // the breaker (but a probe's answer always decides).
            let alone = apiAnswers.isOwnFailure(error, of: job.api, startedAt: call.startedAt, systemFailedAt: job.systemFailedAt)
            let hold = error.retryAfter.map { configuration.retry.apiHold(after: $0, ownFailure: alone, isRetry: job.hasFailed) } ?? .zero
            if hold > .zero { pacing.block(job.api, for: hold, now: now) }
            // Whether this failure uses up the job's uncharged allowance: the breaker may open on
            // it, or the system answered others since the job's last failure (a first failure
            // with answers of calls sent before the outage coming in is the outage's onset).
            let countable = breaker.mayOpen(now: now) || (job.hasFailed && breaker.successes > job.successesSeen)
            if error.isOutage { job.systemFailedAt = now }
            if changeSent, error.mayHaveBeenCarriedOut { job.mayHaveTakenEffect = true }
            let wasClosed = breaker.isClosed
            // A withdrawn call was not sent: a probe withdrawn so decides nothing, and the error
            // is no item's (the items it goes again with keep their last error).
            if case .withdrawn = error {
                if call.probe { breaker.returnProbe(now: now) }
            } else {
                if !alone || call.probe { breaker.recordFailure(error, now: now, probe: call.probe) }
                job.lastError = error.description
                job.successesSeen = breaker.successes
            }
            if wasClosed, !breaker.isClosed { actions.append(.breakerOpened(error)) }
            job.drop(revokedHandles(call))
            if error.resultCode == .resourceExhausted { adapt(call, throttled: true, now: now) }
            switch FailedCallVerdict.of(
                error, job: job, alone: alone, breakerClosed: breaker.isClosed, elapsed: outage.chargedElapsed(job, now: now), configuration: configuration)
            {
            case .released:
                queue.release(job)
            case .resent:  // a suspect stays one (never the probe while other work waits)
                queue.enqueueRetry(job, suspect: !breaker.isClosed && job.systemFailedAt != nil)
            case .paced:
                job.throttles += 1
                queue.enqueueRetry(job)
            case .suspect:
                queue.enqueueRetry(job, suspect: true)
            case .outageBackoff:
                job.unchargedFailures += 1
                if countable { job.countedOutageFailures += 1 }
                scheduleBackoff(job, retryAfter: error.retryAfter, now: now)
            case .backoff:
                job.attempts += 1
                scheduleBackoff(job, retryAfter: error.retryAfter, now: now)
            case .settle:
                job.attempts += 1
                let answer = ItemAnswer(ItemResult(error.resultCode, message: error.description))
                actions.append(.settle(ItemSettlement.every(of: job, answer, attempts: job.attemptsMade)))
                queue.release(job)
            }
        }
        noteOutage(now: now)
        return actions + pump(now: now)
    }

    /// The timer asked for with `.setTimer` fired (when due, or a moment early or late).
    mutating func timerFired(now: ContinuousClock.Instant) -> [DispatchAction] {
        // The shell's one timer has fired, early or late: the pump asks for the next one. Kept
        // when early, nothing would be armed for the instant it stood for, and nothing would wake
        // the machine (a stale timer that fired after a newer one was asked costs a spare wake).
        self.timer = nil
        return pump(now: now)
    }

    /// The requests in `handles` were revoked: their waiting items are forgotten, and items of
    /// theirs in running calls are never retried.
    mutating func drop(_ handles: Set<RequestHandle>, now: ContinuousClock.Instant) -> [DispatchAction] {
        guard !handles.isEmpty else { return [] }
        withdraw(handles)
        return pump(now: now)
    }

    /// The waiting items of `handles` leave (planned, queued or backing off), and the positions
    /// of running calls that carry any are marked revoked (their answers settle nothing); no call
    /// starts (`drop` then pumps).
    mutating func withdraw(_ handles: Set<RequestHandle>) {
        guard !handles.isEmpty else { return }
        planner.drop(handles)
        queue.drop(handles)
        let kept = backoffs.unordered.compactMap { scheduled -> ScheduledRetry? in
            var scheduled = scheduled
            scheduled.job.drop(handles)
            if scheduled.job.items.isEmpty { queue.release(scheduled.job) }
            return scheduled.job.items.isEmpty ? nil : scheduled
        }
        backoffs = Heap(kept)
        for (id, call) in running {
            for positions in call.job.origins.positions(keeping: handles.contains) { running[id]!.revoked.formUnion(positions) }
        }
    }

    /// An operator's settings take effect: `configuration`'s concurrency, rate ceiling and retry
    /// budget from now on (batching, ordering and the breaker keep theirs), and `paused` stops or
    /// resumes starting calls.
    mutating func reconfigure(_ configuration: PipelineConfiguration, paused: Bool, now: ContinuousClock.Instant) -> [DispatchAction] {
        self.configuration.concurrency = configuration.concurrency
        self.configuration.callsPerSecond = configuration.callsPerSecond
        self.configuration.adaptiveRate = configuration.adaptiveRate
        self.configuration.retry = configuration.retry
        pacing.reconfigure(self.configuration.rateSettings, now: now)
        slots.reconfigure(cap: configuration.concurrency)
        self.paused = paused
        noteOutage(now: now)
        return pump(now: now)
    }

    /// No call starts from now on (the worker is stopping); answers still settle.
    mutating func stop() {
        stopped = true
    }

    // MARK: - Starting calls

    private mutating func enqueue(_ calls: [PlannedCall]) {
        for call in calls { queue.enqueue(CallJob(call: call, api: api(of: call.op))) }
    }

    /// Starts what may start now and asks for a timer for the earliest thing still waiting.
    private mutating func pump(now: ContinuousClock.Instant) -> [DispatchAction] {
        var actions: [DispatchAction] = []
        // Partial calls are formed once their linger has passed, and only as many as could start:
        // while every slot is busy or calls wait in the queue (concurrency, rate, quota), the
        // items go on gathering into fuller calls; so do a held key's (its call could not start).
        // Calls that wait only for their key wait for no slot, so they hold no other key's items
        // back. While the breaker is open and only suspects wait (and what is behind their keys),
        // one call is formed: the probe, which new work must be rather than a suspect (seed 1301).
        if let due = lingerDue, due <= now {
            let idle = configuration.concurrency - running.count
            let freeSlots = awaitsNewWork ? min(1, idle) : queue.waitsOnlyForKeys ? idle : 0
            if freeSlots > 0 {
                let calls = { [queue] in planner.take(flush: true, maxPartialCalls: freeSlots) { queue.waitsForKey($0, op: $1, target: $2) } }()
                enqueue(calls)
                lingerDue = planner.isEmpty ? nil : due
            }
        }
        while let first = backoffs.min, first.due <= now {  // a suspect while the breaker is open
            let job = backoffs.removeMin().job
            queue.enqueueRetry(job, suspect: !breaker.isClosed && job.systemFailedAt != nil)
        }
        // A linger that has passed waits for a slot, not for the timer.
        var wakeAt: ContinuousClock.Instant? = lingerDue.flatMap { $0 > now ? $0 : nil }
        if let first = backoffs.min { wakeAt = earlier(wakeAt, first.due) }
        // APIs refused a start in this pump: at one instant, starting other calls frees no slot
        // and adds no rate token, so none of their jobs is asked again. Without it every start
        // refused for the rate asked each waiting key in turn (64 topics in the field profile:
        // 26 % of the worker's CPU went to that scan).
        var closed: [BackendAPI] = []
        // When the first API refused for its rate may start again: kept across the loop's turns,
        // since another API's start in a later turn does not wake it (no token is added at one
        // instant).
        var earliest: ContinuousClock.Instant?
        // The APIs with work waiting: once each is refused, nothing more starts in this pump and
        // the queue stops asking (jobs only leave the queue from here on, so it stays true).
        var waitingAPIs: [BackendAPI] = []
        for op in queue.waitingOps where !waitingAPIs.contains(api(of: op)) { waitingAPIs.append(api(of: op)) }
        while !stopped, !paused, running.count < configuration.concurrency, queue.count > 0 {
            let permission = breaker.permission(now: now)
            if case .wait(let until) = permission {
                wakeAt = earlier(wakeAt, until)
                break
            }
            if permission == .awaitProbe { break }
            let probe = permission == .probe
            // The probe is not held back by the rate limit: it decides whether anything runs.
            // Taken out while the rate limiter (which mutates self) decides: a copy left behind
            // would make the queue copy all its jobs here, at every start.
            var queue = self.queue
            self.queue = CallQueue()
            // Per API: a free slot under its limit first (no side effect), then a rate slot (taken).
            let next = queue.next(
                forProbe: probe,
                allowed: { job in
                    // The probe skips the rate (it decides whether anything runs), never its
                    // API's limit of calls in flight.
                    if probe { return hasSlot(job) ? .start : .skip }
                    let api = job.api
                    if closed.contains(api) { return .skip }
                    if hasSlot(job), admitRate(job, now: now, earliest: &earliest) { return .start }
                    closed.append(api)
                    return waitingAPIs.allSatisfy(closed.contains) ? .stop : .skip
                })
            self.queue = queue
            guard let job = next else {
                if probe { breaker.returnProbe(now: now) }
                break
            }
            actions.append(.start(start(job, probe: probe, now: now)))
            if probe { break }
        }
        if let earliest { wakeAt = earlier(wakeAt, earliest) }
        // An open breaker with nothing left to guard (a revoke or a cancel took all its work)
        // closes once its cooldown has passed: no probe could ever come, and the worker would
        // stay unready, its alert firing, long after the backend is back.
        if !breaker.isClosed, breaker.openUntil.map({ $0 <= now }) ?? true, running.isEmpty, !hasWaitingWork { breaker.forget() }
        if let until = breaker.openUntil, until > now { wakeAt = earlier(wakeAt, until) }
        noteOutage(now: now)
        // Paused while the breaker is open and cooling down; resumed once the cooldown has passed,
        // the probe's time included, so that work arrives to probe with. Not paused while all that
        // waits is suspect (attempts that failed for the whole system): what arrives goes ahead of
        // them as the next probe, and shows whether the system or those items fail.
        let pause = (breaker.openUntil.map { $0 > now } ?? false) && !queue.holdsOnlySuspects
        if pause != pausedForOutage {
            pausedForOutage = pause
            actions.append(.pauseForOutage(pause))
        }
        if let wakeAt, timer.map({ wakeAt < $0 || $0 <= now }) ?? true {
            timer = wakeAt
            actions.append(.setTimer(wakeAt))
        }
        return actions
    }

    private mutating func start(_ job: CallJob, probe: Bool, now: ContinuousClock.Instant) -> CallJob {
        var job = job
        // Every attempt gets an id of its own: the halves a mixed answer splits a call into (its
        // paced and its backed-off items) may run at once, and each answer must settle only the
        // items of its own attempt.
        job.id = nextJobID
        nextJobID += 1
        if job.firstAttempt == nil {
            job.firstAttempt = now
            job.outageAtFirstAttempt = outage.total(now: now)
        }
        running[job.id] = RunningCall(job: job, probe: probe, startedAt: now)
        slots.started(job.api)
        return job
    }

    /// True while `job`'s API has fewer calls in flight than its limit at its current rate (the
    /// paced rate, or while unpaced the ceiling; none without one).
    private func hasSlot(_ job: CallJob) -> Bool {
        slots.hasSlot(job.api, rate: pacing.pace(of: job.api))
    }

    private mutating func admitRate(_ job: CallJob, now: ContinuousClock.Instant, earliest: inout ContinuousClock.Instant?) -> Bool {
        guard let until = pacing.admit(job.api, now: now) else { return true }
        earliest = earlier(earliest, until)
        return false
    }

    /// Moves the adaptive rate of `call`'s API on its answer, and the API's token bucket with it.
    private mutating func adapt(_ call: RunningCall, throttled: Bool, now: ContinuousClock.Instant) {
        pacing.answered(call.job.api, startedAt: call.startedAt, throttled: throttled, now: now)
    }

    // MARK: - Retries and the outage clock

    private mutating func scheduleBackoff(_ job: CallJob, retryAfter: Duration?, now: ContinuousClock.Instant) {
        let delay = configuration.retry.delay(afterAttempts: job.attempts + job.unchargedFailures, retryAfter: retryAfter, using: &random)
        backoffs.insert(ScheduledRetry(due: now + delay, job: job))
    }

    private mutating func noteOutage(now: ContinuousClock.Instant) {
        outage.note(suspended: !breaker.isClosed || paused, now: now)
    }

    private func api(of op: RequestOp) -> BackendAPI {
        op.api(on: configuration.topicBackend)
    }

    private func revokedHandles(_ call: RunningCall) -> Set<RequestHandle> {
        Set(call.revoked.map { call.job.origins[$0].request })
    }

    private func earlier(_ a: ContinuousClock.Instant?, _ b: ContinuousClock.Instant) -> ContinuousClock.Instant {
        a.map { min($0, b) } ?? b
    }
}
