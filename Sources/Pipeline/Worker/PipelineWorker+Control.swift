extension PipelineWorker {
    /// Puts an operator's `settings` in force at once: the concurrency, rate ceiling and retry
    /// budget govern the next call to start, `max-in-flight-items` the next backpressure decision.
    /// Pausing starts no further call; calls in flight finish, their outcomes are published and
    /// their offsets stored; partitions are paused with the group membership kept. Resuming lets
    /// the waiting work start at once. Settings equal to those in force change nothing.
    public func apply(_ settings: ControlledSettings) {
        let previous = controlled
        guard settings != previous else { return }
        controlled = settings
        let effective = settings.applied(to: configuration)
        book.setMaxInFlightItems(effective.maxInFlightItems)
        setPause(.control, settings.paused)
        let changes = settings.changes(from: previous)
        if !changes.isEmpty { logger.notice("control: \(changes.joined(separator: "; "))") }
        metrics.control(paused: settings.paused, overrides: settings.overrideVersions)
        perform(dispatch.reconfigure(effective, paused: settings.paused, now: clock.now))
    }
}
