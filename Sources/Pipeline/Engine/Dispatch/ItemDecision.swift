import InstanceAPI

/// What becomes of one item of an answered call: the decision `DispatchMachine` takes per item.
enum ItemDecision: Equatable {
    /// Its request was revoked while the call ran and the answer would have it go again: dropped.
    case drop
    /// Throttled within the time budget: it goes again at the next allowed slot, uncharged.
    case pace
    /// Retryable and within its attempts: it goes again after a backoff.
    case retry
    /// Final: settled with this answer, charged the attempt unless it was throttled out of time.
    case settle(throttled: Bool)

    /// The decision for an item whose result is `code`. `revoked`: its request was revoked while
    /// the call ran; `withinTime`: throttled items may still be paced; `mayRetry`: retryable
    /// items may go again.
    init(_ code: ResultCode, revoked: Bool, withinTime: Bool, mayRetry: Bool) {
        if code.isRetryable, revoked {
            self = .drop
        } else if code == .resourceExhausted {
            self = withinTime ? .pace : .settle(throttled: true)
        } else if code.isRetryable, mayRetry {
            self = .retry
        } else {
            self = .settle(throttled: false)
        }
    }
}
