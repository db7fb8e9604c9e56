import InstanceAPI
import Testing

@testable import Pipeline

/// Calls whose records a revoke abandoned to another worker are withdrawn (`SendGate`): none of
/// their requests may be sent from then on, or a late write could land after the new owner's
/// calls on the same key. A withdrawn call says nothing of the backend.
extension DispatchMachineTests {
    @Test("a running call is abandoned once every item of it is of a dropped request, not before")
    func abandonedOnlyWhenWhollyDropped() throws {
        var machine = DispatchMachine(
            configuration: pipeline { $0.topicBackend = .iidBatch }, random: SplitMix64(seed: 11))
        // Both requests linger into one call of their topic.
        _ = machine.add(subscribe("a", 2), handle: 1, now: t0)
        _ = machine.add(subscribe("b", 2), handle: 2, now: t0)
        let call = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        #expect(Set(call.origins.runs.map(\.request)) == [1, 2], "one call carries both requests: \(call.origins.runs.map(\.request))")
        _ = machine.drop([1], now: t0)
        #expect(machine.abandonedCalls.isEmpty, "request 2's items still ride on it")
        _ = machine.drop([2], now: t0)
        #expect(machine.abandonedCalls == [call.id])
        _ = machine.finished(jobID: call.id, .failed(.withdrawn(api: .batchAdd), changeSent: false), now: t0 + .seconds(1))
        #expect(machine.abandonedCalls.isEmpty)
        #expect(!machine.hasWaitingWork, "nothing of it is retried")
    }

    @Test("a withdrawn probe says nothing of the backend: the breaker stays open, and the next work is the probe")
    func withdrawnProbe() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.linger = .zero
                $0.retry.maxAttempts = 1
            }, random: SplitMix64(seed: 12))
        let outage = InstanceAPIError.serverError(api: .deleteInstance, status: 503, message: "down", retryAfter: nil)
        var actions: [DispatchAction] = []
        for index in 0..<3 { actions += machine.add(deletion("d\(index)"), handle: RequestHandle(index), now: t0) }
        for job in started(actions) { _ = machine.finished(jobID: job.id, .failed(outage), now: t0) }
        #expect(!machine.breakerClosed)
        // The cooldown passes: the probe goes out; its partition is revoked, and it is withdrawn.
        let probe = try #require(started(machine.timerFired(now: t0 + .seconds(1))).first)
        let handles = Set(probe.origins.runs.map(\.request))
        _ = machine.drop(handles, now: t0 + .seconds(1))
        #expect(machine.abandonedCalls == [probe.id])
        let after = machine.finished(jobID: probe.id, .failed(.withdrawn(api: .deleteInstance), changeSent: false), now: t0 + .seconds(2))
        #expect(!machine.breakerClosed, "a call that was not sent is no sign the backend is back")
        let next = started(after) + started(machine.timerFired(now: t0 + .seconds(2)))
        #expect(next.count == 1, "the next work is the probe: \(next.map(\.id))")
        #expect(!machine.breakerClosed)
    }
}
