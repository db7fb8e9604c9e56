import Foundation
import InstanceAPI

/// Running calls: concurrency, per-API rate limits, the circuit breaker, retries.
extension PipelineWorker {
    func enqueue(_ calls: [PlannedCall]) {
        for call in calls {
            queue.enqueue(CallJob(id: nextJobID, call: call))
            nextJobID += 1
        }
    }

    /// Starts as many queued calls as concurrency, rate limits, ordering and the breaker allow.
    func pump() {
        guard phase != .stopped else { return }
        let now = clock.now
        while runningCalls < configuration.concurrency, queue.count > 0 {
            let permission = breaker.permission(now: now)
            if case .wait(let until) = permission {
                setPause(.breaker, true)
                wake(at: until)
                return
            }
            var earliest: ContinuousClock.Instant?
            let next = queue.next { job in
                // The probe is not held back by the rate limit: it decides whether anything runs.
                permission == .probe || admitRate(job, now: now, earliest: &earliest)
            }
            guard let job = next else {
                if permission == .probe { breaker.returnProbe(now: now) }
                if let earliest { wake(at: earliest) }
                return
            }
            start(job, now: now)
            if permission == .probe { return }
        }
    }

    private func admitRate(_ job: CallJob, now: ContinuousClock.Instant, earliest: inout ContinuousClock.Instant?) -> Bool {
        guard let rate = configuration.callsPerSecond else { return true }
        let api = executor.api(for: job.op)
        guard let wait = buckets[api, default: TokenBucket(rate: rate, now: now)].take(now: now) else { return true }
        earliest = min(earliest ?? now + wait, now + wait)
        return false
    }

    /// Pumps again at `instant` (one timer at a time, the earliest wins).
    private func wake(at instant: ContinuousClock.Instant) {
        if let wakeAt, wakeAt <= instant, wakeAt > clock.now { return }
        wakeAt = instant
        spawn {
            try? await Task.sleep(until: instant, clock: .continuous)
            await self.woke(at: instant)
        }
    }

    private func woke(at instant: ContinuousClock.Instant) {
        if wakeAt == instant { wakeAt = nil }
        pump()
    }

    private func start(_ job: CallJob, now: ContinuousClock.Instant) {
        var job = job
        if job.firstAttempt == nil { job.firstAttempt = now }
        runningCalls += 1
        statistics.calls += 1
        if job.attempts > 0 { statistics.retries += job.items.count }
        for handle in Set(job.origins.map(\.request)) { requests[handle]?.backendCalls += 1 }
        let executor = self.executor
        let attempt = job
        spawn {
            let answer = await executor.perform(attempt.op, target: attempt.target, items: attempt.items)
            await self.finished(attempt, answer)
        }
    }

    private func finished(_ job: CallJob, _ answer: CallAnswer) {
        runningCalls -= 1
        let now = clock.now
        var job = job
        switch answer {
        case .items(let results, let values):
            breaker.recordSuccess()
            setPause(.breaker, false)
            job.attempts += 1
            let mayRetry = configuration.retry.allowsRetry(attemptsMade: job.attempts, elapsed: now - (job.firstAttempt ?? now))
            var retry = job
            retry.items = []
            retry.origins = []
            for index in job.items.indices {
                let result = index < results.count ? results[index] : ItemResult(.internal, message: "the backend gave no result for this item")
                if result.code.isRetryable, mayRetry {
                    retry.items.append(job.items[index])
                    retry.origins.append(job.origins[index])
                } else {
                    finish(job.origins[index], result, value: index < values.count ? values[index] : nil, attempts: job.attempts, lastError: nil)
                }
            }
            if retry.items.isEmpty { queue.release(job) } else { scheduleRetry(retry, retryAfter: nil) }
        case .failed(let error):
            statistics.failedCalls += 1
            let wasClosed = breaker.isClosed
            breaker.recordFailure(error, now: now)
            if wasClosed, !breaker.isClosed {
                statistics.breakerOpenings += 1
                logger.warning("circuit breaker open, pausing consumption: \(error)")
            }
            job.lastError = error.description
            if error.isSystemic || (error.isRetryable && !breaker.isClosed) {
                // A failure of the whole system: not the items' fault, so not charged to them.
                queue.enqueueRetry(job)
            } else if !error.isRetryable {
                job.attempts += 1
                finishAll(job, ItemResult(error.resultCode, message: error.description))
            } else {
                job.attempts += 1
                if configuration.retry.allowsRetry(attemptsMade: job.attempts, elapsed: now - (job.firstAttempt ?? now)) {
                    scheduleRetry(job, retryAfter: error.retryAfter)
                } else {
                    finishAll(job, ItemResult(error.resultCode, message: error.description))
                }
            }
        }
        pump()
    }

    private func finishAll(_ job: CallJob, _ result: ItemResult) {
        for origin in job.origins { finish(origin, result, value: nil, attempts: job.attempts, lastError: job.lastError) }
        queue.release(job)
    }

    private func scheduleRetry(_ job: CallJob, retryAfter: Duration?) {
        let delay = configuration.retry.delay(afterAttempts: job.attempts, retryAfter: retryAfter, using: &random)
        spawn {
            do { try await Task.sleep(for: delay) } catch { return }
            await self.retryDue(job)
        }
    }

    private func retryDue(_ job: CallJob) {
        queue.enqueueRetry(job)
        pump()
    }

    /// Records one item's final result; publishes the request when it was the last.
    private func finish(_ origin: PlannedCall.Origin, _ result: ItemResult, value: String?, attempts: Int, lastError: String?) {
        requests[origin.request]?.finish(origin.index, result, value: value, attempts: attempts, lastError: lastError)
        guard let state = requests[origin.request], state.remaining == 0 else { return }
        requests[origin.request] = nil
        complete(handle: origin.request, state)
    }
}
