import Pipeline
import Synchronization
import Testing

@testable import CommandSupport

/// `WorkerSetup.eventLoopWakes()`: the worker's timers on an event loop. The machines take a wake
/// before their instant for nothing to do and arm no other, so a timer must never run early.
@Suite("A worker's timers on an event loop")
struct EventLoopWakesTests {
    /// Arms `instant` and waits for the closure; returns when it ran.
    private func ran(_ wakes: WakeScheduler, at instant: ContinuousClock.Instant) async -> ContinuousClock.Instant {
        await withCheckedContinuation { continuation in
            _ = wakes.schedule(at: instant) { continuation.resume(returning: .now) }
        }
    }

    @Test("a timer runs at its instant or after, never before, down to a part of a millisecond")
    func neverEarly() async {
        let wakes = WorkerSetup.eventLoopWakes()
        for offset in [Duration.microseconds(1), .microseconds(499), .milliseconds(3), .nanoseconds(1_500_001)] {
            let instant = ContinuousClock.now + offset
            let at = await ran(wakes, at: instant)
            #expect(at >= instant, "a timer for +\(offset) ran \(instant - at) early")
        }
    }

    @Test("an instant already past runs at once")
    func pastRunsAtOnce() async {
        let wakes = WorkerSetup.eventLoopWakes()
        let at = await ran(wakes, at: .now - .seconds(5))
        #expect(at <= .now)
    }

    @Test("a cancelled timer never runs; the next one armed does")
    func cancelled() async throws {
        let wakes = WorkerSetup.eventLoopWakes()
        let runs = Mutex(0)
        let armed = wakes.schedule(at: .now + .milliseconds(50)) { runs.withLock { $0 += 1 } }
        armed.cancel()
        // A later timer on the same loop runs after the cancelled one's instant had passed.
        _ = await ran(wakes, at: .now + .milliseconds(150))
        #expect(runs.withLock { $0 } == 0, "the cancelled timer ran")
    }
}
