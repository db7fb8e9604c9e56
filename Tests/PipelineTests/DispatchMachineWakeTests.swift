import InstanceAPI
import Testing

@testable import Pipeline

/// Issue 33's second review: an API refused a start for its rate in one turn of the start loop
/// still gets its timer when another API's call starts in that turn.
@Suite("Dispatch machine: a rate refusal's wake-up survives another API's start")
struct DispatchMachineWakeTests {
    let t0 = ContinuousClock.now

    @Test("subscribe out of tokens, unsubscribe starts in the same pump: a timer is set for the subscribe's next token")
    func wakeKeptAcrossStarts() {
        var machine = subscribeTokenTaken()
        // Two partial calls, one per API, wait for their linger.
        _ = machine.add(PipelineRequest(id: "a", op: .topicsSubscribe, target: .topic("a"), items: ["x"]), handle: RequestHandle(1), now: t0)
        _ = machine.add(PipelineRequest(id: "b", op: .topicsUnsubscribe, target: .topic("b"), items: ["y"]), handle: RequestHandle(2), now: t0)
        let actions = machine.timerFired(now: t0 + .milliseconds(50))
        let starts = started(actions)
        #expect(starts.map(\.op) == [.topicsUnsubscribe], "the unsubscribe has its own API's token")
        let timers = actions.compactMap { if case .setTimer(let at) = $0 { at } else { nil } }
        #expect(timers.count == 1, "the subscribe waits for a token: without a timer it waits for the next answer")
        if let at = timers.first { #expect(at > t0 + .milliseconds(50) && at <= t0 + .seconds(1) + .milliseconds(10), "\(at - t0)") }
    }

    @Test("a timer that fires a moment early is armed again: the wake it stood for is not lost")
    func earlyTimerIsArmedAgain() {
        var machine = subscribeTokenTaken()
        let waiting = machine.add(
            PipelineRequest(id: "d", op: .topicsSubscribe, target: .topic("d"), items: (0..<1_000).map { "u\($0)" }), handle: RequestHandle(1), now: t0)
        let armed = try? #require(waiting.compactMap { if case .setTimer(let at) = $0 { at } else { nil } }.first)
        guard let armed else { return }
        // The shell's timer fires 1 ms before the instant asked (a scheduler may): nothing is due
        // yet, so the machine must ask again, or nothing would ever wake it.
        let early = machine.timerFired(now: armed - .milliseconds(1))
        #expect(started(early).isEmpty)
        #expect(early.contains { if case .setTimer(let at) = $0 { at >= armed - .milliseconds(1) } else { false } }, "\(early)")
    }

    /// A machine paced at 1 call/s (a burst of 1) per API whose subscribe API's only token a full
    /// batchAdd took at `t0`.
    private func subscribeTokenTaken() -> DispatchMachine {
        var configuration = PipelineConfiguration(name: "test", requestTopic: "requests", linger: .milliseconds(50), concurrency: 4)
        configuration.topicBackend = .iidBatch
        configuration.callsPerSecond = 1
        configuration.adaptiveRate = AdaptiveRate.Settings()
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 1))
        let full = PipelineRequest(id: "c", op: .topicsSubscribe, target: .topic("c"), items: (0..<1_000).map { "t\($0)" })
        #expect(started(machine.add(full, handle: RequestHandle(0), now: t0)).count == 1)
        return machine
    }

    private func started(_ actions: [DispatchAction]) -> [CallJob] {
        actions.compactMap { if case .start(let job) = $0 { job } else { nil } }
    }
}
