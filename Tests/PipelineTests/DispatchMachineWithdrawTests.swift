import InstanceAPI
import Testing

@testable import Pipeline

/// Calls whose records a revoke abandoned to another worker are withdrawn (`SendGate`): none of
/// their requests may be sent from then on, or a late write could land after the new owner's
/// calls on the same key. A withdrawn call says nothing of the backend.
extension DispatchMachineTests {
    @Test(
        "a running call with an item of a dropped request is abandoned; withdrawn unsent, its other requests' items go again at once, uncharged"
    )
    func abandonedWithAnyDroppedItem() throws {
        var machine = DispatchMachine(
            configuration: pipeline { $0.topicBackend = .iidBatch }, random: SplitMix64(seed: 11))
        // Both requests linger into one call of their topic.
        _ = machine.add(subscribe("a", 2), handle: 1, now: t0)
        _ = machine.add(subscribe("b", 2), handle: 2, now: t0)
        let call = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        #expect(Set(call.origins.runs.map(\.request)) == [1, 2], "one call carries both requests: \(call.origins.runs.map(\.request))")
        #expect(machine.abandonedCalls.isEmpty)
        // Request 1's partition is revoked: the call may not send its items any more.
        _ = machine.drop([1], now: t0)
        #expect(machine.abandonedCalls == [call.id], "request 1's items ride on it")
        let after = machine.finished(jobID: call.id, .failed(.withdrawn(api: .batchAdd), changeSent: false), now: t0 + .seconds(1))
        #expect(settled(after).isEmpty, "nothing of it settles")
        let again = try #require(started(after).first, "request 2's items go again at once")
        #expect(Set(again.origins.runs.map(\.request)) == [2])
        #expect(Array(again.items) == ["b-0", "b-1"])
        #expect(again.attempts == 0, "not charged: it was not sent")
        #expect(machine.abandonedCalls.isEmpty)
        let done = machine.finished(jobID: again.id, answers([.ok, .ok]), now: t0 + .seconds(2))
        #expect(settled(done).map(\.answer.result.code) == [.ok, .ok])
        #expect(!machine.hasWaitingWork)
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
