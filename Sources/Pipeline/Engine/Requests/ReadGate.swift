/// How the worker holds consumption back when `max-in-flight-items` items or `max-in-flight-bytes`
/// record bytes are held, as a pure state machine fed what is held and the time.
///
/// Two steps. First it *holds its reads*: it stops taking records from the consumer, and the
/// records librdkafka prefetched wait in its queue, ready when it reads again. Pausing
/// the partitions instead would drop that prefetch and refetch it on resume, which on librdkafka
/// 2.0 waits for the broker thread's next one-second tick: at a fast backend that stall, at every
/// pause, cost most of the throughput. A hold that lasts `holdLimit` (a slow or stalled backend)
/// becomes a *pause* of the partitions, so that the consumer is polled again: rebalances are
/// served, and the group never waits longer than that on this member. Either ends at half the
/// bounds: the records then come in a burst that packs full calls (released at every finished
/// call, they came one at a time and went out in calls of one request's items at each linger,
/// ten times the calls for 100-item requests, at the backend's quota as well as in CPU).
///
/// Both bounds count the same way: items alone bound what small records hold, bytes what padded
/// or large records hold (a one-item request padded to 1 MiB holds 1 MiB).
///
/// Guarantees:
/// - While at least either bound is held, reads are held or the partitions paused.
/// - Reads are held for at most `holdLimit` at a time.
/// - Partitions are paused for backpressure only after a hold of `holdLimit`.
/// - Reads and partitions resume once at most half of both bounds is held (so nothing held
///   always resumes them, whatever the bounds).
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

    /// Items and record bytes: what is held, or the bounds on it.
    struct Load: Equatable, Sendable {
        /// Items of the requests held.
        var items: Int
        /// Bytes of their records, keys and values.
        var bytes: Int

        /// Whether this reaches either of `bound`'s figures.
        func reaches(_ bound: Load) -> Bool { items >= bound.items || bytes >= bound.bytes }

        /// Whether this is at most half of both of `bound`'s figures.
        func isWithinHalf(of bound: Load) -> Bool { items <= bound.items / 2 && bytes <= bound.bytes / 2 }
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

    /// `held` is held under `bound`, at `now`.
    mutating func update(held: Load, bound: Load, now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .open:
            guard held.reaches(bound) else { return [] }
            state = .holding(since: now)
            return [.holdReads(deadline: now + Self.holdLimit)]
        case .holding(let since):
            if held.isWithinHalf(of: bound) {
                state = .open
                return [.releaseReads]
            }
            return now - since >= Self.holdLimit ? pause() : []
        case .paused:
            guard held.isWithinHalf(of: bound) else { return [] }
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
