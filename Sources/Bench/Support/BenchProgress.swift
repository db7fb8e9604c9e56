import Synchronization

/// Counts records for a benchmark reader and tells when they stopped arriving.
final class BenchProgress: Sendable {
    private struct State {
        var count = 0
        var first: ContinuousClock.Instant?
        var last = ContinuousClock.now
    }

    private let state = Mutex(State())

    /// Counts one record; returns the new count.
    func recordOne() -> Int {
        state.withLock { state in
            let now = ContinuousClock.now
            if state.first == nil { state.first = now }
            state.last = now
            state.count += 1
            return state.count
        }
    }

    var count: Int { state.withLock { $0.count } }

    /// Time from the first record to the last.
    var elapsed: Duration { state.withLock { state in state.first.map { state.last - $0 } ?? .zero } }

    /// True when nothing arrived for `quiet`.
    func isStalled(after quiet: Duration) -> Bool {
        state.withLock { ContinuousClock.now - $0.last > quiet }
    }
}
