import InstanceAPI

/// Decides whether the backend may be called, so that failures of the whole system pause work
/// instead of turning every item into a failure.
///
/// Only outages count (`InstanceAPIError.isOutage`): systemic failures (credentials refused,
/// project mismatch) open it at once, other outage failures (5xx, refused connections, timeouts)
/// after `threshold` in a row, unless a success was recorded less than `initialCooldown` before
/// the failure that would open it. Answers of concurrent calls come back in bursts, and a burst
/// may be recorded in any order (all its successes first, say): a backend that fails some calls
/// then shows runs of failures without being down for everyone. A success that recent shows
/// that it is not; if it is down, no more successes come, and the next failure
/// past that time opens the breaker. A call refused for its own content never counts. While open,
/// nothing is called; from `until` on, one probe call may go out: the probe's success closes it,
/// its failure opens it again for twice as long, up to `maxCooldown`. Answers of calls started
/// before the breaker opened decide nothing while it is open. When the cooldown has passed the
/// breaker waits for a probe however long that takes: callers resume consumption then, so work
/// arrives to probe with (an open breaker always has a way back), or, with no work left to guard,
/// close it (`forget`).
public struct CircuitBreaker: Sendable {
    /// Where the breaker is.
    public enum State: Sendable, Equatable {
        /// Calls flow; counts outage failures in a row.
        case closed(consecutiveFailures: Int)
        /// No calls until `until`; `cooldown` is how long this opening lasts.
        case open(until: ContinuousClock.Instant, cooldown: Duration)
        /// One probe call is out; its result decides.
        case probing(cooldown: Duration)
    }

    /// What a caller may do now.
    public enum Permission: Sendable, Equatable {
        /// Call.
        case call
        /// Call once, as the probe.
        case probe
        /// Do not call before this instant (pause consumption meanwhile).
        case wait(until: ContinuousClock.Instant)
        /// The probe is out: nothing else may go until its answer.
        case awaitProbe
    }

    /// Where it is now.
    public private(set) var state: State = .closed(consecutiveFailures: 0)
    /// Outage failures in a row that open it.
    public let threshold: Int
    /// The first opening's length.
    public let initialCooldown: Duration
    /// The longest opening.
    public let maxCooldown: Duration
    /// When the latest success was recorded (nil before the first).
    private var latestSuccess: ContinuousClock.Instant?
    /// Successes recorded so far: which came after a moment, whatever their instants (events at
    /// one instant still come one after another).
    public private(set) var successes = 0

    /// A closed breaker.
    public init(threshold: Int = 5, initialCooldown: Duration = .seconds(1), maxCooldown: Duration = .seconds(60)) {
        self.threshold = threshold
        self.initialCooldown = initialCooldown
        self.maxCooldown = maxCooldown
    }

    /// Whether a call may go out now. Moving from open to probing hands out the one probe.
    public mutating func permission(now: ContinuousClock.Instant) -> Permission {
        switch state {
        case .closed: return .call
        case .probing: return .awaitProbe
        case .open(let until, let cooldown):
            guard now >= until else { return .wait(until: until) }
            state = .probing(cooldown: cooldown)
            return .probe
        }
    }

    /// Whether an outage failure recorded at `now` may open it (its threshold reached): false
    /// within `initialCooldown` of the latest success.
    public func mayOpen(now: ContinuousClock.Instant) -> Bool {
        latestSuccess.map { now - $0 >= initialCooldown } ?? true
    }

    /// True while calls flow freely.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// The instant the current opening ends, while open.
    public var openUntil: ContinuousClock.Instant? {
        if case .open(let until, _) = state { return until }
        return nil
    }

    /// No work is left for it to guard (a revoke or a cancel took it all) and its cooldown has
    /// passed: it closes, as at the start. Open, it would wait for a probe that no work can be
    /// (and keep the worker unready); new work finds out afresh whether the backend answers, and
    /// opens it again if not.
    public mutating func forget() {
        state = .closed(consecutiveFailures: 0)
    }

    /// The probe handed out was not sent (nothing could use it): the next permission hands it out
    /// again instead of waiting for a result that will never come.
    public mutating func returnProbe(now: ContinuousClock.Instant) {
        if case .probing(let cooldown) = state { state = .open(until: now, cooldown: cooldown) }
    }

    /// A call got an answer (whatever its items said), recorded at `now`. `probe` says whether it
    /// was the probe.
    public mutating func recordSuccess(probe: Bool = false, now: ContinuousClock.Instant) {
        switch state {
        case .closed: state = .closed(consecutiveFailures: 0)
        case .probing:
            guard probe else { return }  // only the probe's answer decides, as while open
            state = .closed(consecutiveFailures: 0)
        case .open: return  // an answer to a call sent before the opening proves nothing now
        }
        latestSuccess = now
        successes += 1
    }

    /// A whole call failed with `error`, recorded at `now`. `probe` says whether it was the probe.
    public mutating func recordFailure(_ error: InstanceAPIError, now: ContinuousClock.Instant, probe: Bool = false) {
        guard error.isOutage else {
            // The call's own fault; the backend answered. Only the probe's answer ends a probe.
            if probe, case .probing = state { state = .closed(consecutiveFailures: 0) }
            return
        }
        switch state {
        case .probing(let cooldown):
            guard probe else { return }
            let next = min(cooldown * 2, maxCooldown)
            state = .open(until: now + next, cooldown: next)
        case .open:
            break
        case .closed(let failures):
            if error.isSystemic || (failures + 1 >= threshold && mayOpen(now: now)) {
                state = .open(until: now + initialCooldown, cooldown: initialCooldown)
            } else {
                state = .closed(consecutiveFailures: failures + 1)
            }
        }
    }
}
