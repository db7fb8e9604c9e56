import InstanceAPI
import Testing

@testable import Pipeline

/// Found by the seeded simulation (seed 1301 of 3,000): a suspect attempt (one that failed for the
/// whole system) waiting in the queue must not keep lingering work from forming the call that
/// probes the breaker. The lingering items were formed into calls only while the queue was empty,
/// so the suspect, alone in it, was every probe and failed forever while the rest waited.
@Suite("Dispatch machine: a waiting suspect does not keep lingering work from probing")
struct DispatchMachineSuspectTests {
    let t0 = ContinuousClock.now

    @Test("the breaker's probe after the cooldown is the lingering request's call, not the suspect's")
    func lingeringWorkProbes() throws {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .milliseconds(10), concurrency: 4,
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(10)),
            breakerThreshold: 1, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.topicBackend = .iidBatch
        configuration.adaptiveRate.start = 1_000
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 7))
        // A partial call of topic "stuck" starts once its linger has passed.
        _ = machine.add(Self.subscribe("s", topic: "stuck"), handle: RequestHandle(0), now: t0)
        let stuck = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        // Another request lingers behind it; then the first fails for the whole system.
        _ = machine.add(Self.subscribe("w", topic: "waiting"), handle: RequestHandle(1), now: t0 + .milliseconds(10))
        let refused = machine.finished(jobID: stuck.id, .failed(.unauthenticated(api: .batchAdd, message: "401")), now: t0 + .milliseconds(10))
        #expect(!machine.breakerClosed)
        #expect(started(refused).isEmpty)
        // The cooldown passes: the probe must be the waiting request's call, formed from the planner.
        let probe = try #require(started(machine.timerFired(now: t0 + .milliseconds(10) + .seconds(1))).first)
        #expect(Array(probe.items) == ["w-0", "w-1"], "the probe carried \(Array(probe.items)): the suspect again")
    }

    @Test("a groups.remove that failed for the whole system (a timeout: it may have taken effect) goes again as a retry, though not charged")
    func suspectIsARetry() throws {
        var (machine, first) = try groupRemoveStarted()
        #expect(!first.mayHaveTakenEffect)
        // Its answer is lost: the removal may have happened (and the group, emptied, be gone).
        _ = machine.finished(jobID: first.id, .failed(.timedOut(api: .deviceGroup, timeout: .seconds(30))), now: t0 + .milliseconds(20))
        #expect(!machine.breakerClosed, "the failure opened the breaker: the attempt is a suspect, not charged")
        let again = try #require(started(machine.timerFired(now: t0 + .seconds(2))).first)
        #expect(again.attempts == 0)
        #expect(again.mayHaveTakenEffect, "a group that is not found now may be the one the lost attempt emptied")
    }

    @Test(
        "a groups.remove whose attempt could not have been carried out (no access token, no connection, a refusal, a page not the API's, a failed key lookup) is no retry that may have taken effect"
    )
    func neverSentIsNoRetry() throws {
        let errors: [InstanceAPIError] = [
            .credentials("token endpoint did not answer"), .unreachable(api: .deviceGroup, message: "connection refused"),
            .unauthenticated(api: .deviceGroup, message: "401"),
            .permissionDenied(api: .deviceGroup, message: "403"), .unexpectedAnswer(api: .deviceGroup, status: 404, message: "<html>"),
        ]
        // And a timeout of the group key's lookup, before the removal was sent.
        let unsent: [CallAnswer] = [.failed(.timedOut(api: .deviceGroup, timeout: .seconds(30)), changeSent: false)]
        for answer in errors.map({ CallAnswer.failed($0) }) + unsent {
            var (machine, first) = try groupRemoveStarted()
            _ = machine.finished(jobID: first.id, answer, now: t0 + .milliseconds(20))
            let again = try #require(started(machine.timerFired(now: t0 + .seconds(5))).first, "\(answer)")
            #expect(!again.mayHaveTakenEffect, "after \(answer), a group not found is not one this attempt emptied")
        }
    }

    /// A machine whose breaker opens at the first failure, with the first call of a groups.remove
    /// of two members started.
    private func groupRemoveStarted() throws -> (DispatchMachine, CallJob) {
        var configuration = PipelineConfiguration(
            name: "test", requestTopic: "requests", linger: .milliseconds(10), concurrency: 4,
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxElapsed: .seconds(10)),
            breakerThreshold: 1, breakerCooldown: .seconds(1), breakerMaxCooldown: .seconds(4))
        configuration.adaptiveRate.start = 1_000
        var machine = DispatchMachine(configuration: configuration, random: SplitMix64(seed: 7))
        let remove = PipelineRequest(id: "g", op: .groupsRemove, target: .group(name: "user-1", key: "key-1"), items: ["a", "b"])
        let first = try #require(started(machine.add(remove, handle: RequestHandle(0), now: t0) + machine.timerFired(now: t0 + .milliseconds(10))).first)
        return (machine, first)
    }

    private static func subscribe(_ id: String, topic: String) -> PipelineRequest {
        PipelineRequest(id: id, op: .topicsSubscribe, target: .topic(topic), items: ["\(id)-0", "\(id)-1"])
    }

    private func started(_ actions: [DispatchAction]) -> [CallJob] {
        actions.compactMap { if case .start(let job) = $0 { job } else { nil } }
    }
}
