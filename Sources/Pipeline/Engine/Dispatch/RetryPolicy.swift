/// When to try a retryable item again, and when to give up and dead-letter it.
///
/// Backoff is exponential with full jitter (a uniform draw below the exponential cap), never
/// shorter than the server's `Retry-After`, within a budget of attempts and elapsed time.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Cap of the delay before the first retry.
    public var initialBackoff: Duration
    /// Cap of any delay.
    public var maxBackoff: Duration
    /// No retry starts later than this after the first attempt.
    public var maxElapsed: Duration

    /// A policy; the defaults follow the Admin SDKs' 0.5 s factor, with more attempts for quota.
    public init(maxAttempts: Int = 6, initialBackoff: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(30), maxElapsed: Duration = .seconds(300))
    {
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxElapsed = maxElapsed
    }

    /// Whether an item that failed `attemptsMade` times, the first `elapsed` ago, may be tried again.
    public func allowsRetry(attemptsMade: Int, elapsed: Duration) -> Bool {
        attemptsMade < maxAttempts && elapsed < maxElapsed
    }

    /// The delay before the next attempt after `attemptsMade` failures (1 = the first retry).
    public func delay(afterAttempts attemptsMade: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(max(attemptsMade - 1, 0), 30)
        let capNanoseconds = min(Self.nanoseconds(initialBackoff) * Double(1 << exponent), Self.nanoseconds(maxBackoff))
        let jittered = Duration.nanoseconds(Int64(Double.random(in: 0...capNanoseconds, using: &random)))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, maxBackoff))
    }

    /// How long a server's `retryAfter` holds every call of the API that sent it: at most
    /// `maxBackoff` (one answer must not stop an API for a day, or trap on a wait past the clock's
    /// end). A failure that is the call's own (`ownFailure`: its API answered others meanwhile)
    /// may be one id's trouble or a server shedding some load: its first holds the API for
    /// `initialBackoff` at most, a retry's (`isRetry`: the job failed before, charged or not) not
    /// at all (its own backoff honours the wait), so ids the server keeps refusing do not hold
    /// the API for long.
    func apiHold(after retryAfter: Duration, ownFailure: Bool, isRetry: Bool) -> Duration {
        let longest = !ownFailure ? maxBackoff : isRetry ? .zero : initialBackoff
        return max(.zero, min(retryAfter, longest))
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
