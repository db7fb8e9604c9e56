import Foundation

/// Runs `body` on a thread of its own and returns its result.
///
/// For a long CPU-bound test (a seeded simulation, a fuzz run): run on the cooperative pool,
/// which has one thread per core (two on the CI machine), it holds a thread for its whole run,
/// and two of them at once starve every async test of the process. A clean-clone run showed
/// it: trivial tests waited 48 s to start, and transport calls that awaited a connection past
/// their 30 s deadline failed as unanswered. `body` records no issues itself (it has no test
/// context on its thread): it returns what the test then checks.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 16 << 20
        thread.start()
    }
}
