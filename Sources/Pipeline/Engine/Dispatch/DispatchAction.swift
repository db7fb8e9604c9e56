import InstanceAPI

/// What the dispatch machine asks its shell to do.
enum DispatchAction: Sendable {
    /// Make one attempt of this call and report its answer with `DispatchMachine.finished`.
    case start(CallJob)
    /// These items are final.
    case settle([ItemSettlement])
    /// Pause (true) or resume (false) consumption because of an outage (the circuit breaker).
    case pauseForOutage(Bool)
    /// The circuit breaker opened on this failure.
    case breakerOpened(InstanceAPIError)
    /// Call `DispatchMachine.timerFired` at this instant (it replaces any timer set before).
    case setTimer(ContinuousClock.Instant)
}
