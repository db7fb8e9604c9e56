import InstanceAPI
import Testing

@testable import Pipeline

@Suite("Call queue: per-key order, unrelated work in parallel")
struct CallQueueTests {
    private func job(_ id: Int, _ op: RequestOp, _ target: RequestTarget) -> CallJob {
        var job = CallJob(
            call: PlannedCall(op: op, target: target, items: ["t\(id)"], origins: [.init(request: RequestHandle(id), index: 0)]), api: op.api(on: .iidBatch))
        job.id = id
        return job
    }

    private func drain(_ queue: inout CallQueue) -> [Int] {
        var started: [Int] = []
        while let job = queue.next(allowed: { _ in .start }) { started.append(job.id) }
        return started
    }

    @Test("an unsubscribe waits for the subscribe before it on the same topic, retries included; other topics go on")
    func topicOrder() {
        var queue = CallQueue()
        let subscribe = job(1, .topicsSubscribe, .topic("a"))
        queue.enqueue(subscribe)
        queue.enqueue(job(2, .topicsSubscribe, .topic("a")))
        queue.enqueue(job(3, .topicsUnsubscribe, .topic("a")))
        queue.enqueue(job(4, .topicsUnsubscribe, .topic("b")))
        // Subscribes of one topic commute and run side by side; the unsubscribe is held back.
        #expect(Set(drain(&queue)) == [1, 2, 4])
        queue.release(job(2, .topicsSubscribe, .topic("a")))
        // Job 1's items are being retried: it still holds the topic.
        queue.enqueueRetry(subscribe)
        #expect(drain(&queue) == [1])
        queue.release(subscribe)
        #expect(drain(&queue) == [3])
        #expect(queue.count == 0)
    }

    @Test("device-group calls run one at a time per group, in order")
    func groupOrder() {
        var queue = CallQueue()
        queue.enqueue(job(1, .groupsCreate, .group(name: "g", key: nil)))
        queue.enqueue(job(2, .groupsAdd, .group(name: "g", key: nil)))
        queue.enqueue(job(3, .groupsAdd, .group(name: "g", key: nil)))
        queue.enqueue(job(4, .groupsCreate, .group(name: "h", key: nil)))
        #expect(Set(drain(&queue)) == [1, 4])
        queue.release(job(1, .groupsCreate, .group(name: "g", key: nil)))
        #expect(drain(&queue) == [2])
        queue.release(job(2, .groupsAdd, .group(name: "g", key: nil)))
        #expect(drain(&queue) == [3])
    }

    @Test("deletions and imports have no order to keep; a refused job (rate limit) stays queued")
    func independentWork() {
        var queue = CallQueue()
        for id in 1...3 { queue.enqueue(job(id, .installationsDelete, .subject(nil))) }
        #expect(queue.next(allowed: { _ in .skip }) == nil && queue.count == 3)
        #expect(drain(&queue) == [1, 2, 3])
    }
}

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("a burst, then one token per 1/rate; the wait is reported, nothing taken while empty")
    func pacing() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 10, burst: 2, now: start)
        #expect(bucket.take(now: start) == nil && bucket.take(now: start) == nil)
        let wait = bucket.take(now: start)
        #expect(wait.map { $0 > .milliseconds(99) && $0 <= .milliseconds(101) } == true)
        #expect(bucket.take(now: start + .milliseconds(50)) != nil)
        #expect(bucket.take(now: start + .milliseconds(100)) == nil)
        // Over a long quiet spell it refills only up to the burst.
        let later = start + .seconds(10)
        #expect(bucket.take(now: later) == nil && bucket.take(now: later) == nil && bucket.take(now: later) != nil)
    }
}
