/// Runs `body` with a started `fixture`, then stops it with `stop` whether `body` returned or
/// threw: a test never leaves a server, a broker or a process behind.
package func withStarted<Fixture, T>(
    _ fixture: Fixture, stop: (Fixture) async -> Void, _ body: (Fixture) async throws -> T
) async throws -> T {
    do {
        let result = try await body(fixture)
        await stop(fixture)
        return result
    } catch {
        await stop(fixture)
        throw error
    }
}
