import TestSupport

/// Waits until `condition` holds, checking every 20 ms; throws after `timeout`, which guards
/// against hangs only (never a speed check). The one waiting helper of the end-to-end tests.
func waitUntil(_ what: @autoclosure () -> String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { throw FixtureFailure("timed out waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
