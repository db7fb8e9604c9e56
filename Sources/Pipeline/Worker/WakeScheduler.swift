/// Runs the worker's timers: a closure, once, at an instant, unless cancelled first.
///
/// The worker arms one dispatch timer (pacing, linger, backoff, the breaker's cooldown) and one
/// read-hold deadline at a time, re-arming the first up to a few hundred times a second while a
/// rate paces calls. `tasks` sleeps a task per timer, which on Linux is a Dispatch timer: its
/// manager thread wakes a Dispatch worker thread, which hands the task to the worker's executor,
/// three thread wakes per timer, and a cancelled sleep still fires. A process whose tasks run on
/// NIO event loops passes a scheduler on one of them instead (`iidbatch`'s
/// `WorkerSetup.eventLoopWakes()`): the loop's own poll times the wake, and a cancelled timer is
/// gone.
///
/// A closure may run after its timer was cancelled (it had already been taken to run), or a little
/// early or late: the worker checks the instant against its own clock when it runs.
public struct WakeScheduler: Sendable {
    /// A timer armed by `schedule(at:_:)`.
    public struct Armed: Sendable {
        private let cancelBody: @Sendable () -> Void

        /// A timer that `cancel` stops.
        public init(cancel: @escaping @Sendable () -> Void) {
            self.cancelBody = cancel
        }

        /// Stops the timer: its closure does not run, unless it already started to.
        public func cancel() { cancelBody() }
    }

    private let scheduleBody: @Sendable (ContinuousClock.Instant, @escaping @Sendable () -> Void) -> Armed

    /// A scheduler that arms a timer with `schedule`: run the closure once at the instant, or soon
    /// after, unless the returned timer is cancelled first.
    public init(schedule: @escaping @Sendable (ContinuousClock.Instant, @escaping @Sendable () -> Void) -> Armed) {
        self.scheduleBody = schedule
    }

    /// Runs `body` once at `instant` (at once when it has passed) unless the result is cancelled.
    public func schedule(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> Armed {
        scheduleBody(instant, body)
    }

    /// Sleeps a task per timer on Swift's global executor.
    public static let tasks = WakeScheduler { instant, body in
        let task = Task {
            do { try await Task.sleep(until: instant, clock: .continuous) } catch { return }
            body()
        }
        return Armed { task.cancel() }
    }
}
