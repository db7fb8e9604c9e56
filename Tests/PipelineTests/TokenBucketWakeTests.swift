import Pipeline
import Testing

/// Issue 33's performance part: a paced caller is woken once per few milliseconds' worth of
/// tokens, not once per token, and still keeps the rate on average.
@Suite("TokenBucket wakes")
struct TokenBucketWakeTests {
    /// Drains `bucket` the way the dispatch machine does for `seconds` of simulated time: at each
    /// wake it takes tokens until told to wait, then sleeps exactly that wait.
    private func drive(_ bucket: inout TokenBucket, from start: ContinuousClock.Instant, seconds: Int) -> (taken: Int, wakes: Int) {
        let end = start + .seconds(seconds)
        var now = start
        var taken = 0
        var wakes = 0
        while now < end {
            wakes += 1
            while true {
                guard let wait = bucket.take(now: now) else {
                    taken += 1
                    continue
                }
                now += wait
                break
            }
        }
        return (taken, wakes)
    }

    @Test("at 3,000/s an empty bucket asks to wait for 20 ms worth (60 tokens), and keeps the rate")
    func batchedWakes() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 3000, now: start)
        #expect(bucket.burst == 300 && bucket.wakeBatch == 60)
        for _ in 0..<300 { #expect(bucket.take(now: start) == nil) }
        let wait = bucket.take(now: start)
        #expect(wait.map { $0 >= .microseconds(19_999) && $0 <= .microseconds(20_001) } == true)
        let (taken, wakes) = drive(&bucket, from: start + wait!, seconds: 10)
        // 10 s at 3,000/s: within one batch of the exact count, and about 50 wakes a second.
        #expect(abs(taken - 30_000) <= 60, "taken \(taken)")
        #expect(wakes <= 505, "wakes \(wakes)")
        #expect(wakes >= 495, "wakes \(wakes)")
    }

    @Test("a slow rate still waits for a single token, and a small burst bounds the batch")
    func slowRateAndSmallBurst() {
        let start = ContinuousClock.now
        var slow = TokenBucket(rate: 50, burst: 1, now: start)
        #expect(slow.wakeBatch == 1)
        #expect(slow.take(now: start) == nil)
        let wait = slow.take(now: start)
        #expect(wait.map { $0 >= .milliseconds(20) && $0 <= .microseconds(20_001) } == true)
        var narrow = TokenBucket(rate: 3000, burst: 4, now: start)
        #expect(narrow.wakeBatch == 4)
        let (taken, wakes) = drive(&narrow, from: start, seconds: 1)
        #expect(abs(taken - 3_004) <= 4, "taken \(taken)")
        #expect(wakes >= 740 && wakes <= 760, "wakes \(wakes)")
    }

    @Test("asked between wakes (an answer freed a slot), an emptied bucket still starts its calls a batch at a time")
    func askedBetweenWakes() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 3000, now: start)
        while bucket.take(now: start) == nil {}
        // Asked every 1 ms, as answers arriving at 1,000/s would ask: before the first
        // wakeBatch is there, nothing starts; then the batch starts together, not one per ask.
        var now = start
        var grants: [Int] = []
        for _ in 0..<100 {
            now += .milliseconds(1)
            var granted = 0
            while bucket.take(now: now) == nil { granted += 1 }
            if granted > 0 { grants.append(granted) }
        }
        #expect(grants.allSatisfy { $0 >= 60 }, "grants \(grants)")
        // The rate holds: 100 ms at 3,000/s is 300 tokens, granted in batches of about 60 (the
        // last batch may fall due a moment after the 100th ask).
        #expect((240...300).contains(grants.reduce(0, +)), "grants \(grants)")
    }

    @Test("a new rate moves the batch with it")
    func batchFollowsRate() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(rate: 3000, now: start)
        bucket.setRate(1000, now: start)
        #expect(bucket.wakeBatch == 20)
        bucket.setRate(100, now: start)
        #expect(bucket.wakeBatch == 2)
        bucket.setRate(20, now: start)
        #expect(bucket.wakeBatch == 1)
    }
}
