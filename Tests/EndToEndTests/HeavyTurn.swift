import Synchronization
import Testing

/// A suite that loads the whole machine (several processes of its own: the README walkthrough,
/// the demo, the benches) runs its turn alone among such suites; the rest of the run goes on
/// beside it. Four of them at once on a 2-core runner (a load of 13) left this process's
/// in-process emulators too slow for the product's own deadlines: a token endpoint not answering
/// a refused key within the start's 15 s check, a loopback connect past 10 s, a metadata probe
/// past 3 s, and the tests waiting on them failed.
struct HeavyTurn: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.turns.take()
        defer { Self.turns.give() }
        try await function()
    }

    /// First come, first served; a waiter is a continuation, not a blocked thread.
    private final class Turns: Sendable {
        private let state = Mutex((taken: false, waiting: [CheckedContinuation<Void, Never>]()))

        func take() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let granted = state.withLock { state in
                    guard !state.taken else {
                        state.waiting.append(continuation)
                        return false
                    }
                    state.taken = true
                    return true
                }
                if granted { continuation.resume() }
            }
        }

        func give() {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.taken = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    private static let turns = Turns()
}

extension Trait where Self == HeavyTurn {
    /// Runs the suite in a turn of its own among the heavy suites (see `HeavyTurn`).
    static var heavy: Self { HeavyTurn() }
}
