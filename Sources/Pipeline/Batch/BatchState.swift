/// Where a batch stands, as `iidbatch batches` shows it (`BatchProgress.state`).
public enum BatchState: String, Sendable, Hashable, CaseIterable {
    /// Its producer has not yet had every request record acknowledged.
    case submitting
    /// Its requests are being worked on (or wait for a worker).
    case running
    /// Its pipeline is paused by an operator.
    case paused
    /// Every request has an outcome.
    case done
    /// A cancel of its pipeline names it.
    case cancelled
}
