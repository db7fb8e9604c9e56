import Synchronization

/// The bytes of answer bodies one transport holds while reading them, across every connection
/// and call: each call's limit (`APILimits.answerBytes`) bounds one answer, this bounds them all.
/// Hundreds of calls in flight, each answered with megabytes (a proxy's pages, a server that
/// misbehaves), would otherwise hold gigabytes. A call whose next part would pass the budget
/// fails (`TransportError.answerBudgetExhausted`: a failure of the whole system, retried later);
/// bytes are given back when the call completes or fails.
final class AnswerBudget: Sendable {
    /// The default: 128 MiB, 32 of the largest answers any API may give (4 MiB) at once, and a
    /// thousand times what the calls in flight of a worker at its quota hold.
    static let defaultBytes = 128 << 20

    /// The most bytes held at once.
    let limit: Int
    private let held = Atomic(0)

    /// A budget of `limit` bytes.
    init(limit: Int = AnswerBudget.defaultBytes) {
        self.limit = limit
    }

    /// Bytes held now.
    var bytesHeld: Int { held.load(ordering: .relaxed) }

    /// Takes `bytes` and returns true, or takes nothing and returns false when they would pass
    /// the limit.
    func take(_ bytes: Int) -> Bool {
        let after = held.add(bytes, ordering: .relaxed).newValue
        guard after > limit else { return true }
        held.subtract(bytes, ordering: .relaxed)
        return false
    }

    /// Gives back `bytes` taken before.
    func giveBack(_ bytes: Int) {
        guard bytes > 0 else { return }
        held.subtract(bytes, ordering: .relaxed)
    }
}
