import Synchronization

/// Every librdkafka handle of the process, from `rd_kafka_new` until `rd_kafka_destroy` returned
/// (or until it was kept on purpose, never to be destroyed), so that the exit path can wait for
/// the destroys: each one wakes the waiters, nothing polls.
final class RDKafkaClientRegistry: Sendable {
    /// The registry of this process.
    static let shared = RDKafkaClientRegistry()

    private struct Waiter {
        /// Names that must all be settled (destroyed or kept); nil: every handle.
        var names: Set<String>?
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        /// Handles made and not yet destroyed (nor kept), by registration, with their names.
        var live: [Int: String] = [:]
        /// Names of the handles kept on purpose (see `RDKafkaClient.destroyMayAbort`).
        var kept: [String] = []
        var waiters: [Int: Waiter] = [:]
        var nextID = 0

        func settled(_ names: Set<String>?) -> Bool {
            guard let names else { return live.isEmpty }
            return live.values.allSatisfy { !names.contains($0) }
        }
    }

    private let state = Mutex(State())

    /// Registers a handle just made; returns its registration.
    func register(name: String) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.live[state.nextID] = name
            return state.nextID
        }
    }

    /// `rd_kafka_destroy` of the handle `registration` returned.
    func destroyed(_ registration: Int) {
        settle(registration, kept: false)
    }

    /// The handle `registration` will never be destroyed: its threads end with the process.
    func kept(_ registration: Int) {
        settle(registration, kept: true)
    }

    /// Names of the handles not yet destroyed (nor kept).
    var live: [String] { state.withLock { $0.live.values.sorted() } }

    /// Names of the handles kept on purpose.
    var kept: [String] { state.withLock { $0.kept } }

    /// Returns true once none of the handles named `names` (nil: no handle at all) is live, false
    /// at `deadline` if one still is.
    @discardableResult
    func waitUntilSettled(_ names: Set<String>? = nil, deadline: ContinuousClock.Instant) async -> Bool {
        let id = state.withLock { state -> Int? in
            guard !state.settled(names) else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        let expiry = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
        defer { expiry.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                // The last destroy may have come, or the deadline passed, since the check above.
                guard !state.settled(names), ContinuousClock.now < deadline else { return true }
                state.waiters[id] = Waiter(names: names, continuation: continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { $0.settled(names) }
    }

    private func settle(_ registration: Int, kept: Bool) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard let name = state.live.removeValue(forKey: registration) else { return [] }
            if kept { state.kept.append(name) }
            let ready = state.waiters.filter { state.settled($0.value.names) }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }
}
