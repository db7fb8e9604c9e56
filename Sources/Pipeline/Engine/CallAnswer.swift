import InstanceAPI

/// What one attempt of a backend call came back with.
public enum CallAnswer: Sendable {
    /// The call was answered: one answer per item, in the call's order.
    case items(RunLengthList<ItemAnswer>)
    /// The call as a whole failed: no item got an answer.
    case failed(InstanceAPIError)
}
