import InstanceAPI
import Testing

@testable import Pipeline

/// An open breaker waits for a probe, and only work can be one. A revoke (a rebalance in an
/// outage) or a cancel that takes all the work would leave it open for good: the worker unready
/// and its alert firing long after the backend is back (found by the deploy audit).
extension DispatchMachineTests {
    @Test("a revoke that takes all the work closes the open breaker once its cooldown has passed")
    func revokeTakesAllWork() throws {
        var (machine, started, _) = machineWithOpenBreaker(seed: 21)
        #expect(started == 3)
        #expect(!machine.breakerClosed)
        let dropped = machine.drop([0, 1, 2], now: t0 + .milliseconds(500))
        #expect(!machine.hasWaitingWork && machine.runningCalls == 0)
        #expect(!machine.breakerClosed, "cooling down: new work would wait for it")
        #expect(timers(dropped) == [t0 + .seconds(1)], "a wake at the cooldown's end")
        _ = machine.timerFired(now: t0 + .seconds(1))
        #expect(machine.breakerClosed, "nothing is left that could probe")
        let fresh = machine.add(deletion("new"), handle: 9, now: t0 + .seconds(2))
        #expect(self.started(fresh).count == 1)
    }

    @Test("a revoke that leaves work, or a call in flight, keeps the breaker open")
    func revokeLeavesWork() throws {
        var (machine, _, _) = machineWithOpenBreaker(seed: 22)
        _ = machine.drop([0, 1], now: t0 + .milliseconds(500))
        #expect(!machine.breakerClosed, "request 2 still waits on it")
        let probe = try #require(self.started(machine.timerFired(now: t0 + .seconds(1))).first)
        _ = machine.drop([2], now: t0 + .seconds(1))
        #expect(!machine.breakerClosed, "the probe is in flight")
        _ = machine.finished(jobID: probe.id, .failed(.withdrawn(api: .deleteInstance), changeSent: false), now: t0 + .seconds(2))
        #expect(machine.breakerClosed, "withdrawn, and nothing left")
    }
}
