import InstanceAPI

/// What one attempt of a backend call came back with.
public enum CallAnswer: Sendable {
    /// The call was answered: one result per item, in the call's order, each with the value the
    /// backend returned for it (a registration token for imports, the group's notification key).
    case items([ItemResult], values: [String?])
    /// The call as a whole failed: no item got an answer.
    case failed(InstanceAPIError)
}
