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

    /// The status of a request whose items ended with `codes`.
    public static func of(_ codes: some Sequence<ResultCode>) -> OutcomeStatus {
        var succeeded = 0
        var total = 0
        for code in codes {
            total += 1
            if code.isSuccess { succeeded += 1 }
        }
        if total > 0 && succeeded == total { return .succeeded }
        return succeeded == 0 ? .failed : .partial
    }
}
