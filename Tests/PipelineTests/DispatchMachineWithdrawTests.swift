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

    @Test("items that go again after a withdrawal do not carry its error: their receipts and dead letters name their own")
    func withdrawalIsNoItemsError() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.topicBackend = .iidBatch
                $0.retry.maxAttempts = 1
            }, random: SplitMix64(seed: 13))
        _ = machine.add(subscribe("a", 1), handle: 1, now: t0)
        _ = machine.add(subscribe("b", 1), handle: 2, now: t0)
        let call = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        _ = machine.drop([1], now: t0)
        let after = machine.finished(jobID: call.id, .failed(.withdrawn(api: .batchAdd), changeSent: false), now: t0 + .seconds(1))
        let again = try #require(started(after).first)
        let done = settled(machine.finished(jobID: again.id, answers([.internal]), now: t0 + .seconds(2)))
        #expect(done.map(\.answer.result.code) == [.internal])
        #expect(done.allSatisfy { $0.lastError?.contains("withdrawn") != true }, "\(done.map(\.lastError))")
    }

    @Test("a suspect withdrawn as the breaker's probe stays a suspect: the new work behind it is the next probe")
    func withdrawnSuspectProbe() throws {
        var machine = DispatchMachine(
            configuration: pipeline {
                $0.topicBackend = .iidBatch
                $0.breakerThreshold = 1
            }, random: SplitMix64(seed: 14))
        // Two subscribes share a call; it fails for the whole system, and the breaker opens.
        _ = machine.add(subscribe("a", 1), handle: 1, now: t0)
        _ = machine.add(subscribe("b", 1), handle: 2, now: t0)
        let call = try #require(started(machine.timerFired(now: t0 + .milliseconds(10))).first)
        _ = machine.finished(jobID: call.id, .failed(.transport(api: .batchAdd, message: "reset")), now: t0 + .milliseconds(10))
        #expect(!machine.breakerClosed)
        // The cooldown passes: the suspect, all that waits, is the probe. New work arrives.
        let probe = try #require(started(machine.timerFired(now: t0 + .seconds(2))).first)
        #expect(Set(probe.origins.runs.map(\.request)) == [1, 2])
        let fresh = machine.add(deletion("d9"), handle: 9, now: t0 + .seconds(2))
        #expect(started(fresh).isEmpty, "the probe runs")
        // One of the probe's requests is revoked, and the probe withdrawn unsent.
        _ = machine.drop([1], now: t0 + .seconds(2))
        let after = machine.finished(jobID: probe.id, .failed(.withdrawn(api: .batchAdd), changeSent: false), now: t0 + .seconds(2))
        let next = started(after) + started(machine.timerFired(now: t0 + .seconds(2)))
        #expect(next.map(\.op) == [.installationsDelete], "the new work probes, not the suspect: \(next.map(\.op))")
    }

    @Test("a withdrawn probe says nothing of the backend: the breaker stays open, and the next work is the probe")
    func withdrawnProbe() throws {
        var machine = machineWithOpenBreaker(seed: 12).machine
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
