import Testing

@testable import Pipeline

/// The read gate alone, on an injected clock: holds at the bound, pauses only after a long hold,
/// releases either at half the bound.
@Suite("Read gate: reads held at the bound, partitions paused only when the hold lasts")
struct ReadGateTests {
    let start = ContinuousClock.now

    @Test("below the bound nothing happens; at it reads are held, and released at half of it")
    func holdAndRelease() {
        var gate = ReadGate()
        #expect(gate.update(itemsInFlight: 99, limit: 100, now: start).isEmpty)
        #expect(!gate.readsHeld)
        #expect(gate.update(itemsInFlight: 100, limit: 100, now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.readsHeld)
        #expect(gate.update(itemsInFlight: 140, limit: 100, now: start + .seconds(1)).isEmpty, "still held; the record taken last may overshoot")
        #expect(gate.update(itemsInFlight: 99, limit: 100, now: start + .seconds(2)).isEmpty, "released at half: the records then fill calls")
        #expect(gate.update(itemsInFlight: 51, limit: 100, now: start + .seconds(2)).isEmpty)
        #expect(gate.update(itemsInFlight: 50, limit: 100, now: start + .seconds(2)) == [.releaseReads])
        #expect(gate.state == .open)
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit).isEmpty, "a deadline after the release does nothing")
        #expect(gate.state == .open)
    }

    @Test("a hold that lasts the limit pauses the partitions and lets the reader poll; the pause ends at half the bound")
    func longHoldPauses() {
        var gate = ReadGate()
        _ = gate.update(itemsInFlight: 100, limit: 100, now: start)
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit - .milliseconds(1)).isEmpty, "an early timer does not pause")
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit) == [.pausePartitions, .releaseReads])
        #expect(gate.state == .paused && !gate.readsHeld, "the reader polls again while paused")
        #expect(gate.update(itemsInFlight: 99, limit: 100, now: start + .seconds(6)).isEmpty, "above half: stays paused")
        #expect(gate.update(itemsInFlight: 51, limit: 100, now: start + .seconds(7)).isEmpty)
        #expect(gate.update(itemsInFlight: 50, limit: 100, now: start + .seconds(8)) == [.resumePartitions])
        #expect(gate.state == .open)
        #expect(gate.update(itemsInFlight: 100, limit: 100, now: start + .seconds(9)) == [.holdReads(deadline: start + .seconds(9) + ReadGate.holdLimit)])
    }

    @Test("an update past the hold's deadline pauses too (a late timer loses nothing)")
    func lateUpdatePauses() {
        var gate = ReadGate()
        _ = gate.update(itemsInFlight: 100, limit: 100, now: start)
        #expect(gate.update(itemsInFlight: 100, limit: 100, now: start + ReadGate.holdLimit) == [.pausePartitions, .releaseReads])
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit + .seconds(1)).isEmpty, "already paused")
    }

    @Test("a bound lowered by an operator takes effect at the next update")
    func boundChanges() {
        var gate = ReadGate()
        #expect(gate.update(itemsInFlight: 60, limit: 100, now: start).isEmpty)
        #expect(gate.update(itemsInFlight: 60, limit: 50, now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.update(itemsInFlight: 60, limit: 1_000, now: start) == [.releaseReads], "raised: released at once")
    }
}
