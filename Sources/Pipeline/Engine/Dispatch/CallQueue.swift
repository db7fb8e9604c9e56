import DequeModule

/// Calls waiting to run, and the rule that keeps per-key order while unrelated work runs in
/// parallel.
///
/// Per ordering key (a topic name, a device group), calls start in arrival order, and a call
/// starts only when every call of its key still running (or waiting to retry) has the same op and
/// target; for topics, calls of one op run side by side since their items commute. Device-group
/// calls run one at a time. Jobs of independent ops (deletions, imports, lookups) have no key.
/// A job holds its key from its first start until `release`, retries included, so a subscribe
/// whose retries are pending is never overtaken by the unsubscribe behind it.
struct CallQueue: Sendable {
    private struct Holder {
        var op: RequestOp
        var target: RequestTarget
        var count: Int
    }

    private var retries: Deque<CallJob> = []
    /// Suspect retries: attempts that failed for the whole system. They go first like any retry,
    /// but never as the breaker's probe while other work waits, so that one item that always
    /// fails that way is not every probe.
    private var suspects: Deque<CallJob> = []
    private var unordered: Deque<CallJob> = []
    private var ordered: [String: Deque<CallJob>] = [:]
    /// Keys with queued jobs, each once, visited round-robin.
    private var ring: Deque<String> = []
    private var holders: [String: Holder] = [:]
    private var preferUnordered = false

    /// Jobs waiting to start (retries included).
    private(set) var count = 0
    /// Jobs waiting to start by op: which APIs have work waiting.
    private var countByOp: [RequestOp: Int] = [:]

    /// The ops of the jobs waiting to start.
    var waitingOps: some Collection<RequestOp> { countByOp.keys }

    /// How many jobs hold each key (for invariant checks: each is running, waiting to retry or
    /// backing off).
    var holdCounts: [String: Int] { holders.mapValues(\.count) }

    /// The retries waiting to start, which hold their keys.
    var waitingRetries: some Sequence<CallJob> { retries + suspects }

    /// True when suspects wait and every other job waiting waits for its key (`waitsOnlyForKeys`):
    /// nothing but a suspect could be the next probe.
    var holdsOnlySuspects: Bool { !suspects.isEmpty && retries.isEmpty && unordered.isEmpty && everyKeyWaits }

    /// True when every job waiting (none included) waits for its key: behind a job of its key that
    /// runs, backs off or is suspect, with an op that may not run beside it. Such jobs hold no
    /// slot, whatever the concurrency, rate or quota, so they must not keep other keys' work from
    /// being formed into calls.
    var waitsOnlyForKeys: Bool { retries.isEmpty && suspects.isEmpty && unordered.isEmpty && everyKeyWaits }

    /// Whether the first job of every key with jobs queued may not start beside its key's
    /// holders (`OrderingRule`): the rest of each key's are behind it. Stops at the first that may.
    private var everyKeyWaits: Bool {
        ordered.allSatisfy { key, jobs in jobs.first.map { !admissible($0, key: key) } ?? true }
    }

    /// Whether a call of `op` on `target` queued now would wait for its key (`key`, its
    /// `OrderingRule.key`, when `op` has one): earlier jobs of its key wait, or the key's holders
    /// run an op it may not run beside (`OrderingRule`).
    func waitsForKey(_ key: String, op: RequestOp, target: RequestTarget) -> Bool {
        guard OrderingRule.isOrdered(op) else { return false }
        if ordered[key]?.isEmpty == false { return true }
        guard let holder = holders[key] else { return false }
        return !OrderingRule.mayRunBeside(op: op, target: target, heldOp: holder.op, heldTarget: holder.target)
    }

    /// Queues a new job behind earlier work of its key.
    mutating func enqueue(_ job: CallJob) {
        added(job)
        guard let key = job.orderingKey else {
            unordered.append(job)
            return
        }
        if ordered[key, default: []].isEmpty { ring.append(key) }
        ordered[key, default: []].append(job)
    }

    /// Queues another attempt of a job that already holds its key; it goes first. A `suspect`
    /// (an attempt that failed for the whole system) is the probe only when nothing else waits.
    mutating func enqueueRetry(_ job: CallJob, suspect: Bool = false) {
        added(job)
        if suspect { suspects.append(job) } else { retries.append(job) }
    }

    /// What the rate limiter says of a job: it starts; it does not start now (others may); or
    /// nothing more starts now (no job waiting is of an API that may start), so the queue
    /// stops asking.
    enum Verdict {
        /// The job starts.
        case start
        /// Not this job now.
        case skip
        /// Not this job, nor any other now.
        case stop
    }

    /// The next job that may start and that `allowed` (the rate limiter) lets through, marking it
    /// as holding its key. Nil when nothing may start now.
    mutating func next(forProbe probe: Bool = false, allowed: (CallJob) -> Verdict) -> CallJob? {
        var stopped = false
        func asks(_ job: CallJob) -> Bool {
            guard !stopped else { return false }
            switch allowed(job) {
            case .start: return true
            case .skip: return false
            case .stop:
                stopped = true
                return false
            }
        }
        if let job = retries.first, asks(job) {
            return taken(retries.removeFirst())
        }
        if !probe, let job = suspects.first, asks(job) {
            return taken(suspects.removeFirst())
        }
        preferUnordered.toggle()
        if preferUnordered, let job = nextUnordered(asks) { return job }
        if let job = nextOrdered(asks, stopped: { stopped }) { return job }
        if !preferUnordered, let job = nextUnordered(asks) { return job }
        guard probe, let job = suspects.first, asks(job) else { return nil }
        return taken(suspects.removeFirst())
    }

    /// Removes the items of the requests in `handles` from every waiting job (their partitions
    /// were revoked). A retry left empty gives up its key; a new job left empty is forgotten.
    mutating func drop(_ handles: Set<RequestHandle>) {
        for held in [\Self.retries, \Self.suspects] {
            self[keyPath: held] = Deque(
                self[keyPath: held].compactMap { job in
                    var job = job
                    job.drop(handles)
                    if job.items.isEmpty { release(job) }
                    return job.items.isEmpty ? nil : job
                })
        }
        unordered = Deque(
            unordered.compactMap { job in
                var job = job
                job.drop(handles)
                return job.items.isEmpty ? nil : job
            })
        for (key, jobs) in ordered {
            let kept = Deque(
                jobs.compactMap { job -> CallJob? in
                    var job = job
                    job.drop(handles)
                    return job.items.isEmpty ? nil : job
                })
            ordered[key] = kept.isEmpty ? nil : kept
        }
        ring = Deque(ring.filter { ordered[$0] != nil })
        count = 0
        countByOp = [:]
        for job in retries { added(job) }
        for job in suspects { added(job) }
        for job in unordered { added(job) }
        for jobs in ordered.values { for job in jobs { added(job) } }
    }

    /// A job split off a running one (its throttled items): it holds the key too, until released.
    mutating func holdAlso(_ job: CallJob) {
        guard let key = job.orderingKey, var holder = holders[key] else { return }
        holder.count += 1
        holders[key] = holder
    }

    /// A job's items are all final: it no longer holds its key.
    mutating func release(_ job: CallJob) {
        guard let key = job.orderingKey, var holder = holders[key] else { return }
        holder.count -= 1
        holders[key] = holder.count > 0 ? holder : nil
    }

    private mutating func nextUnordered(_ allowed: (CallJob) -> Bool) -> CallJob? {
        guard let job = unordered.first, allowed(job) else { return nil }
        return taken(unordered.removeFirst())
    }

    private mutating func nextOrdered(_ allowed: (CallJob) -> Bool, stopped: () -> Bool) -> CallJob? {
        guard !stopped() else { return nil }
        for _ in 0..<ring.count {
            let key = ring.removeFirst()
            guard let job = ordered[key]?.first else { continue }
            guard admissible(job, key: key), allowed(job) else {
                if stopped() {
                    // Nothing more starts now: the key keeps its turn, and the rest are not asked.
                    ring.prepend(key)
                    return nil
                }
                ring.append(key)
                continue
            }
            ordered[key]!.removeFirst()
            if ordered[key]!.isEmpty { ordered[key] = nil } else { ring.append(key) }
            holders[key, default: Holder(op: job.op, target: job.target, count: 0)].count += 1
            return taken(job)
        }
        return nil
    }

    /// Counts a job that joins the queue.
    private mutating func added(_ job: CallJob) {
        count += 1
        countByOp[job.op, default: 0] += 1
    }

    /// Uncounts a job that leaves the queue to start, and returns it.
    private mutating func taken(_ job: CallJob) -> CallJob {
        count -= 1
        if let left = countByOp[job.op], left > 1 { countByOp[job.op] = left - 1 } else { countByOp[job.op] = nil }
        return job
    }

    private func admissible(_ job: CallJob, key: String) -> Bool {
        guard let holder = holders[key] else { return true }
        return OrderingRule.mayRunBeside(op: job.op, target: job.target, heldOp: holder.op, heldTarget: holder.target)
    }
}
