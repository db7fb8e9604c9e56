import Synchronization

/// What one call carried, noted by its handler and read by `StatisticsMiddleware` afterwards.
final class CallTally: Sendable {
    private let noted = Mutex<(items: Int, codes: [String])>((0, []))
    private let quota = Mutex(false)

    /// The quota throttled this call.
    func markThrottled() { quota.withLock { $0 = true } }

    /// Whether the quota throttled this call.
    var throttled: Bool { quota.withLock { $0 } }

    /// Notes `answer`'s items and codes.
    func note(_ answer: EmulatorResponse) {
        noted.withLock { $0 = (answer.items, answer.codes) }
    }

    /// The items and codes noted.
    var value: (items: Int, codes: [String]) { noted.withLock { $0 } }
}
