import Testing

@testable import Pipeline

/// The read gate alone, on an injected clock: holds at either bound (items, record bytes), pauses
/// only after a long hold, releases either at half of both bounds.
@Suite("Read gate: reads held at the bound, partitions paused only when the hold lasts")
struct ReadGateTests {
    let start = ContinuousClock.now
    /// 100 items or 1 MiB of records.
    let bound = ReadGate.Load(items: 100, bytes: 1 << 20)

    @Test("below the bound nothing happens; at it reads are held, and released at half of it")
    func holdAndRelease() {
        var gate = ReadGate()
        #expect(gate.update(held: .items(99), bound: .itemBound(100), now: start).isEmpty)
        #expect(!gate.readsHeld)
        #expect(gate.update(held: .items(100), bound: .itemBound(100), now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.readsHeld)
        #expect(gate.update(held: .items(140), bound: .itemBound(100), now: start + .seconds(1)).isEmpty, "still held; the record taken last may overshoot")
        #expect(gate.update(held: .items(99), bound: .itemBound(100), now: start + .seconds(2)).isEmpty, "released at half: the records then fill calls")
        #expect(gate.update(held: .items(51), bound: .itemBound(100), now: start + .seconds(2)).isEmpty)
        #expect(gate.update(held: .items(50), bound: .itemBound(100), now: start + .seconds(2)) == [.releaseReads])
        #expect(gate.state == .open)
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit).isEmpty, "a deadline after the release does nothing")
        #expect(gate.state == .open)
    }

    @Test("a hold that lasts the limit pauses the partitions and lets the reader poll; the pause ends at half the bound")
    func longHoldPauses() {
        var gate = ReadGate()
        _ = gate.update(held: .items(100), bound: .itemBound(100), now: start)
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit - .milliseconds(1)).isEmpty, "an early timer does not pause")
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit) == [.pausePartitions, .releaseReads])
        #expect(gate.state == .paused && !gate.readsHeld, "the reader polls again while paused")
        #expect(gate.update(held: .items(99), bound: .itemBound(100), now: start + .seconds(6)).isEmpty, "above half: stays paused")
        #expect(gate.update(held: .items(51), bound: .itemBound(100), now: start + .seconds(7)).isEmpty)
        #expect(gate.update(held: .items(50), bound: .itemBound(100), now: start + .seconds(8)) == [.resumePartitions])
        #expect(gate.state == .open)
        #expect(
            gate.update(held: .items(100), bound: .itemBound(100), now: start + .seconds(9)) == [.holdReads(deadline: start + .seconds(9) + ReadGate.holdLimit)]
        )
    }

    @Test("an update past the hold's deadline pauses too (a late timer loses nothing)")
    func lateUpdatePauses() {
        var gate = ReadGate()
        _ = gate.update(held: .items(100), bound: .itemBound(100), now: start)
        #expect(gate.update(held: .items(100), bound: .itemBound(100), now: start + ReadGate.holdLimit) == [.pausePartitions, .releaseReads])
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit + .seconds(1)).isEmpty, "already paused")
    }

    @Test("a bound lowered by an operator takes effect at the next update")
    func boundChanges() {
        var gate = ReadGate()
        #expect(gate.update(held: .items(60), bound: .itemBound(100), now: start).isEmpty)
        #expect(gate.update(held: .items(60), bound: .itemBound(50), now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.update(held: .items(60), bound: .itemBound(1_000), now: start) == [.releaseReads], "raised: released at once")
    }

    @Test("record bytes alone reach the bound: one-item records padded to 256 kB hold reads at the fourth, whatever the items")
    func bytesHold() {
        var gate = ReadGate()
        let record = 256 << 10
        #expect(gate.update(held: .init(items: 3, bytes: 3 * record), bound: bound, now: start).isEmpty)
        #expect(gate.update(held: .init(items: 4, bytes: 4 * record), bound: bound, now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.readsHeld, "4 items of 100, but 1 MiB of 1 MiB")
        #expect(gate.update(held: .init(items: 3, bytes: 3 * record), bound: bound, now: start + .seconds(1)).isEmpty, "above half the bytes")
        #expect(gate.update(held: .init(items: 2, bytes: 2 * record), bound: bound, now: start + .seconds(1)) == [.releaseReads])
    }

    @Test("a long hold on bytes pauses the partitions; they resume only once both items and bytes are at most half their bounds")
    func bytesPauseAndResume() {
        var gate = ReadGate()
        _ = gate.update(held: .init(items: 10, bytes: 1 << 20), bound: bound, now: start)
        #expect(gate.holdExpired(now: start + ReadGate.holdLimit) == [.pausePartitions, .releaseReads])
        #expect(gate.update(held: .init(items: 10, bytes: (1 << 19) + 1), bound: bound, now: start + .seconds(6)).isEmpty, "bytes above half")
        #expect(gate.update(held: .init(items: 51, bytes: 0), bound: bound, now: start + .seconds(7)).isEmpty, "items above half")
        #expect(gate.update(held: .init(items: 50, bytes: 1 << 19), bound: bound, now: start + .seconds(8)) == [.resumePartitions])
    }

    @Test("a record larger than the byte bound is taken alone: reads are held while it is, and released once nothing is held")
    func recordLargerThanTheBound() {
        var gate = ReadGate()
        #expect(gate.update(held: .init(items: 1, bytes: 3 << 20), bound: bound, now: start) == [.holdReads(deadline: start + ReadGate.holdLimit)])
        #expect(gate.update(held: .init(items: 0, bytes: 0), bound: bound, now: start + .seconds(1)) == [.releaseReads])
    }
}

extension ReadGate.Load {
    /// `items` items held in records of no bytes.
    static func items(_ items: Int) -> Self { Self(items: items, bytes: 0) }

    /// A bound of `items` items and no bound on bytes.
    static func itemBound(_ items: Int) -> Self { Self(items: items, bytes: .max) }
}
