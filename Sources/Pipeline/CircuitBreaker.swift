import InstanceAPI

/// Decides whether the backend may be called, so that failures of the whole system pause work
/// instead of turning every item into a failure.
///
/// Systemic failures (credentials refused, project mismatch) open it at once; other call failures
/// (unavailable, refused connections, timeouts) open it after `threshold` in a row. While open,
/// nothing is called; after the cooldown one probe call goes through: success closes it, failure
/// opens it again for twice as long, up to `maxCooldown`.
public struct CircuitBreaker: Sendable {
    /// Where the breaker is.
    public enum State: Sendable, Equatable {
        /// Calls flow; counts call failures in a row.
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
    }

    /// Where it is now.
    public private(set) var state: State = .closed(consecutiveFailures: 0)
    /// Call failures in a row that open it.
    public let threshold: Int
    /// The first opening's length.
    public let initialCooldown: Duration
    /// The longest opening.
    public let maxCooldown: Duration

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
        case .probing: return .wait(until: now + .milliseconds(50))
        case .open(let until, let cooldown):
            guard now >= until else { return .wait(until: until) }
            state = .probing(cooldown: cooldown)
            return .probe
        }
    }

    /// True while calls flow freely.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// The probe handed out was not sent (nothing could use it): the next permission hands it out
    /// again instead of waiting for a result that will never come.
    public mutating func returnProbe(now: ContinuousClock.Instant) {
        if case .probing(let cooldown) = state { state = .open(until: now, cooldown: cooldown) }
    }

    /// A call got an answer (whatever its items said).
    public mutating func recordSuccess() {
        state = .closed(consecutiveFailures: 0)
    }

    /// A whole call failed with `error`.
    public mutating func recordFailure(_ error: InstanceAPIError, now: ContinuousClock.Instant) {
        switch state {
        case .probing(let cooldown):
            let next = min(cooldown * 2, maxCooldown)
            state = .open(until: now + next, cooldown: next)
        case .open:
            break
        case .closed(let failures):
            if error.isSystemic || failures + 1 >= threshold {
                state = .open(until: now + initialCooldown, cooldown: initialCooldown)
            } else {
                state = .closed(consecutiveFailures: failures + 1)
            }
        }
    }
}
