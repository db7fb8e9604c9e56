/// How the worker holds consumption back when `max-in-flight-items` items are held, as a pure
/// state machine fed the items held and the time.
///
/// Two steps. First it *holds its reads*: it stops taking records from the consumer, and the
/// records librdkafka prefetched wait in its queue, ready when it reads again. Pausing
/// the partitions instead would drop that prefetch and refetch it on resume, which on librdkafka
/// 2.0 waits for the broker thread's next one-second tick: at a fast backend that stall, at every
/// pause, cost most of the throughput. A hold that lasts `holdLimit` (a slow or stalled backend)
/// becomes a *pause* of the partitions, so that the consumer is polled again: rebalances are
/// served, and the group never waits longer than that on this member. Either ends at half the
/// bound: the records then come in a burst that packs full calls (released at every finished
/// call, they came one at a time and went out in calls of one request's items at each linger,
/// ten times the calls for 100-item requests, at the backend's quota as well as in CPU).
///
/// Guarantees:
/// - While at least the bound is held, reads are held or the partitions paused.
/// - Reads are held for at most `holdLimit` at a time.
/// - Partitions are paused for backpressure only after a hold of `holdLimit`.
/// - Reads and partitions resume once at most half the bound is held.
struct ReadGate: Sendable {
    /// Where consumption stands.
    enum State: Equatable, Sendable {
        /// Records are taken as they come.
        case open
        /// Records are left in the consumer's queue since `since`.
        case holding(since: ContinuousClock.Instant)
        /// The partitions are paused for backpressure.
        case paused
    }

    /// What the worker does.
    enum Action: Equatable, Sendable {
        /// Stop taking records; call `holdExpired` at `deadline` if still holding.
        case holdReads(deadline: ContinuousClock.Instant)
        /// Take records again.
        case releaseReads
        /// Pause the assigned partitions (backpressure).
        case pausePartitions
        /// Resume them.
        case resumePartitions
    }

    /// How long reads are held before the partitions are paused instead.
    static let holdLimit = Duration.seconds(5)

    private(set) var state = State.open

    /// Whether the reader must wait before taking its next record.
    var readsHeld: Bool {
        if case .holding = state { true } else { false }
    }

    /// `itemsInFlight` items are held under a bound of `limit`, at `now`.
    mutating func update(itemsInFlight: Int, limit: Int, now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .open:
            guard itemsInFlight >= limit else { return [] }
            state = .holding(since: now)
            return [.holdReads(deadline: now + Self.holdLimit)]
        case .holding(let since):
            if itemsInFlight <= limit / 2 {
                state = .open
                return [.releaseReads]
            }
            return now - since >= Self.holdLimit ? pause() : []
        case .paused:
            guard itemsInFlight <= limit / 2 else { return [] }
            state = .open
            return [.resumePartitions]
        }
    }

    /// The deadline of a hold came, at `now`.
    mutating func holdExpired(now: ContinuousClock.Instant) -> [Action] {
        guard case .holding(let since) = state, now - since >= Self.holdLimit else { return [] }
        return pause()
    }

    private mutating func pause() -> [Action] {
        state = .paused
        return [.pausePartitions, .releaseReads]
    }
}
