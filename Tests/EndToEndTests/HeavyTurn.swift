import Kafka
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
        try await Self.turns.taking { try await function() }
    }

    /// First come, first served; a waiter is a continuation, not a blocked thread. Not the
    /// forks' turns (`ForkTurns.shared`): a heavy suite forks in its turn.
    private static let turns = ForkTurns()
}

extension Trait where Self == HeavyTurn {
    /// Runs the suite in a turn of its own among the heavy suites (see `HeavyTurn`).
    static var heavy: Self { HeavyTurn() }
}
