import InstanceAPI
import WireJSON

/// What one attempt of a backend call came back with.
public enum CallAnswer: Sendable {
    /// The call was answered: one answer per item, in the call's order.
    case items(RunLengthList<ItemAnswer>)
    /// The call as a whole failed: no item got an answer. `changeSent` is false when it failed
    /// before the call that makes its change was sent (a lookup the change needs first, such as a
    /// device group's key by name): then nothing can have been carried out, whatever the error.
    case failed(InstanceAPIError, changeSent: Bool = true)
}

extension CallAnswer {
    /// True when the backend (or something in front of it) answered, whatever it said; false
    /// when no answer came (a refused or reset connection, a timeout, no access token, a call
    /// refused before it was sent). Only answered calls tell the latency (`ConcurrencyLimit`).
    var wasAnswered: Bool {
        switch self {
        case .items: true
        case .failed(let error, _): error.answerStatus != nil
        }
    }
}
