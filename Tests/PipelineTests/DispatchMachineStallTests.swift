import InstanceAPI
import Testing
import WireJSON

@testable import Pipeline

/// Found by a read-only audit of the engine for stalls: work that waits only for its key (behind
/// a call of the same topic or group that is backing off, or a suspect) held no slot, yet counted
/// as the queue's, so no other key's partial call was formed, and with the breaker open the
/// suspect was every probe; and one id's own `Retry-After` held every call of its API.
@Suite("Dispatch machine: work waiting for its key does not hold back other keys; one id's wait is its own")
struct DispatchMachineStallTests {
    let t0 = ContinuousClock.now

    private func configuration(breakerThreshold: Int = 5) -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .milliseconds(10), concurrency: 4,
            retry: RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(10), maxBackoff: .seconds(30), maxElapsed: .seconds(600)),
            breakerThreshold: breakerThreshold, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.topicBackend = .iidBatch
        configuration.adaptiveRate.start = 1_000
        return configuration
    }

    @Test("a topic's unsubscribe waiting behind its subscribe's backoff does not keep another topic's partial call from starting")
    func keyBlockedWorkHoldsNoSlot() throws {
        // The unsubscribe of the same topic waits for the subscribe to end.
        var (machine, subscribe) = try topic("a", heldBy: .topicsSubscribe, then: .topicsUnsubscribe)
        // The subscribe's items fail INTERNAL: backed off for seconds, holding the topic.
        let failedItems = CallAnswer.items(RunLengthList(repeating: ItemAnswer(ItemResult(.internal, message: "internal")), count: subscribe.items.count))
        _ = machine.finished(jobID: subscribe.id, failedItems, now: t0 + .milliseconds(20))
        // Another topic's request lingers, then starts: every slot is free.
        let other = started(
            machine.add(Self.request("b", .topicsSubscribe, topic: "b"), handle: RequestHandle(2), now: t0 + .milliseconds(20))
                + machine.timerFired(now: t0 + .milliseconds(30)))
        #expect(other.map { Array($0.items) } == [["b-0", "b-1"]], "started: \(other.map { Array($0.items) })")
    }

    @Test("items of a topic whose key is held by another op wait unformed, so the call that starts once it is free carries them all")
    func blockedKeyGathers() throws {
        var (machine, unsubscribe) = try topic("a", heldBy: .topicsUnsubscribe, then: .topicsSubscribe)
        _ = machine.add(Self.request("s2", .topicsSubscribe, topic: "a"), handle: RequestHandle(2), now: t0 + .milliseconds(20))
        #expect(started(machine.timerFired(now: t0 + .milliseconds(30))).isEmpty)
        let ok = CallAnswer.items(RunLengthList(repeating: ItemAnswer(.ok), count: unsubscribe.items.count))
        let next = started(machine.finished(jobID: unsubscribe.id, ok, now: t0 + .milliseconds(30)))
        #expect(next.map { Array($0.items) } == [["second-0", "second-1", "s2-0", "s2-1"]], "cut while the topic was held: \(next.map { Array($0.items) })")
    }

    @Test("with the breaker open, a suspect and work behind its key wait: new work is formed and is the probe, and reading goes on")
    func suspectWithWorkBehindItsKey() throws {
        var (machine, stuck) = try topic("stuck", heldBy: .topicsSubscribe, then: .topicsUnsubscribe, breakerThreshold: 1)
        // The subscribe fails for the whole system: the breaker opens, the subscribe is a suspect.
        let refused = machine.finished(jobID: stuck.id, .failed(.unauthenticated(api: .batchAdd, message: "401")), now: t0 + .milliseconds(20))
        #expect(!machine.breakerClosed)
        #expect(machine.awaitsNewWork, "only the suspect and work behind its key wait")
        #expect(!refused.contains { if case .pauseForOutage(true) = $0 { true } else { false } }, "reading paused: no new work could probe")
        _ = machine.add(Self.request("w", .topicsSubscribe, topic: "waiting"), handle: RequestHandle(2), now: t0 + .milliseconds(20))
        let probe = try #require(started(machine.timerFired(now: t0 + .milliseconds(20) + .seconds(1))).first)
        #expect(Array(probe.items) == ["w-0", "w-1"], "the probe carried \(Array(probe.items)): the suspect again")
    }

    @Test("a server's Retry-After to one id's retry that fails again on its own, while other calls of its API are answered, backs off that call only")
    func ownRetryAfterHoldsOnlyItsCall() throws {
        var machine = DispatchMachine(configuration: configuration(), random: SplitMix64(seed: 7))
        let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: .seconds(3_600))
        let first = try #require(started(machine.add(Self.deletion("poisoned"), handle: RequestHandle(0), now: t0)).first)
        // Its first failure holds the API (a server shedding load looks the same): for max-backoff.
        _ = machine.finished(jobID: first.id, .failed(unavailable), now: t0 + .milliseconds(10))
        #expect(started(machine.add(Self.deletion("held"), handle: RequestHandle(1), now: t0 + .milliseconds(10))).isEmpty)
        // After it, the retry and the held call start; the other is answered, the retry fails again.
        let resumed = started(machine.timerFired(now: t0 + .seconds(31)))
        let retry = try #require(resumed.first { Array($0.items) == ["poisoned"] }, "\(resumed.map { Array($0.items) })")
        let held = try #require(resumed.first { Array($0.items) == ["held"] }, "\(resumed.map { Array($0.items) })")
        _ = machine.finished(jobID: held.id, .items(RunLengthList([ItemAnswer(.ok)])), now: t0 + .seconds(31) + .milliseconds(5))
        _ = machine.finished(jobID: retry.id, .failed(unavailable), now: t0 + .seconds(31) + .milliseconds(10))
        let next = started(machine.add(Self.deletion("next"), handle: RequestHandle(2), now: t0 + .seconds(31) + .milliseconds(10)))
        #expect(next.map { Array($0.items) } == [["next"]], "the API was held for one id's wait")
    }

    /// A machine whose call of `held` on `topic` (request `first`) runs, and a request of `then`
    /// on it (`second`, items `second-0`, `second-1`) was added and has lingered: it waits.
    @Test("a server's Retry-After to one id's first call that fails on its own holds the API for the first backoff, not the longest")
    func ownFirstRetryAfterHoldsBriefly() throws {
        var machine = DispatchMachine(configuration: configuration(), random: SplitMix64(seed: 7))
        let first = started(
            machine.add(Self.deletion("poisoned"), handle: RequestHandle(0), now: t0)
                + machine.add(Self.deletion("fine"), handle: RequestHandle(1), now: t0))
        let poisoned = try #require(first.first { Array($0.items) == ["poisoned"] })
        let fine = try #require(first.first { Array($0.items) == ["fine"] })
        _ = machine.finished(jobID: fine.id, .items(RunLengthList([ItemAnswer(.ok)])), now: t0 + .milliseconds(5))
        let unavailable = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "unavailable", retryAfter: .seconds(3_600))
        _ = machine.finished(jobID: poisoned.id, .failed(unavailable), now: t0 + .milliseconds(10))
        #expect(started(machine.add(Self.deletion("next"), handle: RequestHandle(2), now: t0 + .milliseconds(10))).isEmpty)
        let next = started(machine.timerFired(now: t0 + .milliseconds(10) + .seconds(10)))
        #expect(next.map { Array($0.items) } == [["next"]], "held past the first backoff (10 s): \(next.map { Array($0.items) })")
    }

    @Test("how long a Retry-After holds its API: the longest backoff for a failure of the system, the first for a call's own first, nothing for its retry")
    func apiHold() {
        let retry = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(30))
        #expect(retry.apiHold(after: .seconds(3_600), ownFailure: false, isRetry: true) == .seconds(30))
        #expect(retry.apiHold(after: .seconds(5), ownFailure: false, isRetry: false) == .seconds(5))
        #expect(retry.apiHold(after: .seconds(3_600), ownFailure: true, isRetry: false) == .seconds(1))
        #expect(retry.apiHold(after: .seconds(3_600), ownFailure: true, isRetry: true) == .zero)
        #expect(retry.apiHold(after: .seconds(-5), ownFailure: false, isRetry: false) == .zero)
    }

    private func topic(_ topic: String, heldBy held: RequestOp, then: RequestOp, breakerThreshold: Int = 5) throws -> (DispatchMachine, CallJob) {
        var machine = DispatchMachine(configuration: configuration(breakerThreshold: breakerThreshold), random: SplitMix64(seed: 7))
        _ = machine.add(Self.request("first", held, topic: topic), handle: RequestHandle(0), now: t0)
        let running = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        _ = machine.add(Self.request("second", then, topic: topic), handle: RequestHandle(1), now: t0 + .milliseconds(10))
        #expect(started(machine.timerFired(now: t0 + .milliseconds(20))).isEmpty)
        return (machine, running)
    }

    private static func request(_ id: String, _ op: RequestOp, topic: String) -> PipelineRequest {
        PipelineRequest(id: id, op: op, target: .topic(topic), items: ["\(id)-0", "\(id)-1"])
    }

    private static func deletion(_ id: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: [id])
    }

    private func started(_ actions: [DispatchAction]) -> [CallJob] {
        actions.compactMap { if case .start(let job) = $0 { job } else { nil } }
    }
}
