import TestSupport
import Testing

@Suite("Waiting on an observed value")
struct ObservedTests {
    @Test("a wait that began before the change is woken by it")
    func wokenByChange() async throws {
        let counter = Observed(0)
        let waiter = Task { try await counter.wait(timeout: .seconds(60), until: { $0 >= 3 }, orThrow: { _ in FixtureFailure("hang") }) }
        for _ in 0..<3 {
            await Task.yield()
            counter.update { $0 += 1 }
        }
        #expect(try await waiter.value == 3)
    }

    @Test("a wait that times out throws what the failure makes of the value then")
    func timesOut() async throws {
        let counter = Observed(7)
        let error = await #expect(throws: FixtureFailure.self) {
            try await counter.wait(timeout: .milliseconds(10), until: { $0 > 7 }, orThrow: { FixtureFailure("still \($0)") })
        }
        #expect(error?.description == "still 7")
    }

    @Test("a cancelled wait ends")
    func cancelled() async throws {
        let counter = Observed(0)
        let waiter = Task { try await counter.wait(timeout: .seconds(600), until: { $0 > 0 }, orThrow: { _ in FixtureFailure("hang") }) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(counter.value == 0)
    }
}
