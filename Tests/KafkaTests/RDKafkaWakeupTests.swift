import Testing

@testable import Kafka

@Suite("Waking the task that waits for the consumer queue")
struct RDKafkaWakeupTests {
    @Test("a signal sent while nobody waits is kept for the next wait")
    func signalBeforeWait() async throws {
        let wakeup = RDKafkaWakeup()
        wakeup.signal()
        try await withTimeout(60, "a wait after a signal") { await wakeup.wait(fallback: .seconds(3_600)) }
    }

    @Test("cancelling the waiting task wakes it at once, without the fallback")
    func cancelWakes() async throws {
        let wakeup = RDKafkaWakeup()
        let (events, event) = AsyncStream.makeStream(of: String.self)
        let waiting = Task {
            event.yield("waiting")
            await wakeup.wait(fallback: .seconds(3_600))
            event.yield("woke")
        }
        _ = await events.first { _ in true }
        waiting.cancel()
        // Read from the stream, not the task's value, so that a wait that does not return fails
        // the test after the timeout instead of holding it for the fallback.
        let woke = try await withTimeout(60, "the cancelled wait to return") { await events.first { $0 == "woke" } }
        #expect(woke == "woke")
    }

}
