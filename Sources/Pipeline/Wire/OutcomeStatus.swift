import InstanceAPI

/// How a request ended, as a whole.
public enum OutcomeStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every item succeeded (`OK` or `ALREADY_ABSENT`).
    case succeeded
    /// Some items succeeded, some did not.
    case partial
    /// No item succeeded.
    case failed
    /// The record was not a valid request; nothing was called.
    case rejected
    /// An operator cancelled the request (`iidbatch control cancel`) before any backend call was
    /// made for it: nothing was called, and it is not dead-lettered.
    case cancelled

    /// Whether an outcome of this status shows backend calls made in its delivery: false for
    /// `rejected` and `cancelled`, whose deliveries called nothing (so, in the operator's tools,
    /// they never replace or undo an outcome that called).
    public var called: Bool { self != .rejected && self != .cancelled }

    /// The status of a request whose items ended with `codes`.
    public static func of(_ codes: some Sequence<ResultCode>) -> OutcomeStatus {
        var succeeded = 0
        var failed = 0
        for code in codes {
            if code.isSuccess { succeeded += 1 } else { failed += 1 }
        }
        return of(succeeded: succeeded, failed: failed)
    }

    /// The status of a request with `succeeded` items that succeeded and `failed` that did not:
    /// the one status rule, for outcomes and for reconciliation across replays.
    public static func of(succeeded: Int, failed: Int) -> OutcomeStatus {
        if failed == 0 { return succeeded > 0 ? .succeeded : .failed }
        return succeeded == 0 ? .failed : .partial
    }
}
