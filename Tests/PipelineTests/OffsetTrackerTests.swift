import Kafka
import Pipeline
import Testing

@Suite("Offset tracking")
struct OffsetTrackerTests {
    let p0 = KafkaTopicPartition(topic: "requests", partition: 0)
    let p1 = KafkaTopicPartition(topic: "requests", partition: 1)

    @Test("the store point only passes records that are done, whatever order they finish in")
    func outOfOrder() {
        var tracker = OffsetTracker()
        tracker.assign([p0])
        for offset in Int64(100)..<110 { tracker.received(p0, offset: offset) }
        #expect(tracker.takeStorable() == [p0: 100], "nothing done: the first pending offset")
        tracker.completed(p0, offset: 103)
        tracker.completed(p0, offset: 101)
        #expect(tracker.takeStorable().isEmpty, "100 is still in flight")
        tracker.completed(p0, offset: 100)
        #expect(tracker.takeStorable() == [p0: 102])
        tracker.completed(p0, offset: 102)
        #expect(tracker.takeStorable() == [p0: 104])
        #expect(tracker.inFlight == 6)
        for offset in Int64(104)..<110 { tracker.completed(p0, offset: offset) }
        #expect(tracker.takeStorable() == [p0: 110])
        #expect(tracker.takeStorable().isEmpty, "each advance is handed out once")
        #expect(tracker.inFlight == 0)
    }

    @Test("randomized: the store point never passes an unfinished record and ends past the last")
    func randomized() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var tracker = OffsetTracker()
            tracker.assign([p1])
            let count = Int.random(in: 1...300, using: &generator)
            for offset in 0..<Int64(count) { tracker.received(p1, offset: offset) }
            var unfinished = Set(0..<Int64(count))
            var lastPoint: Int64 = -1
            for offset in (0..<Int64(count)).shuffled(using: &generator) {
                tracker.completed(p1, offset: offset)
                unfinished.remove(offset)
                if let point = tracker.takeStorable()[p1] {
                    #expect(point > lastPoint, "the store point only moves forward")
                    #expect(unfinished.allSatisfy { $0 >= point }, "stored past an unfinished record")
                    lastPoint = point
                }
            }
            #expect(tracker.inFlight == 0)
            #expect(lastPoint == Int64(count), "once all are done, everything is storable")
        }
    }

    @Test("partitions are independent; redeliveries are ignored; revoked partitions are forgotten")
    func partitions() {
        var tracker = OffsetTracker()
        tracker.assign([p0, p1])
        tracker.received(p0, offset: 5)
        tracker.received(p1, offset: 7)
        tracker.completed(p1, offset: 7)
        #expect(tracker.takeStorable() == [p0: 5, p1: 8])
        let redelivered = tracker.received(p1, offset: 7)
        #expect(!redelivered, "a redelivered record is not tracked twice")
        tracker.forget([p0])
        #expect(tracker.inFlight == 0)
        let afterRevoke = tracker.received(p0, offset: 3)
        #expect(!afterRevoke, "a record of a partition no longer assigned is not tracked")
        tracker.assign([p0])
        let afresh = tracker.received(p0, offset: 3)
        #expect(afresh, "assigned again, the partition starts afresh")
    }

    @Test("a record of a partition never assigned is not tracked, so its redelivery after the assignment is")
    func recordBeforeAssignment() {
        var tracker = OffsetTracker()
        let early = tracker.received(p0, offset: 22)
        #expect(!early, "nothing may be stored for a partition this worker does not hold")
        #expect(tracker.inFlight == 0)
        tracker.assign([p0])
        let delivered = tracker.received(p0, offset: 22)
        #expect(delivered, "the assignment's own delivery of the record is the one tracked")
        #expect(tracker.takeStorable() == [p0: 22])
    }

    @Test("a completion from an earlier assignment never moves the store point of a later one (issue 17, point 7)")
    func staleCompletion() {
        var tracker = OffsetTracker()
        let first = tracker.assign([p0])
        tracker.received(p0, offset: 0)
        tracker.received(p0, offset: 1)
        // Revoked with both records in flight, then assigned again: both are delivered anew.
        tracker.forget([p0])
        let second = tracker.assign([p0])
        #expect(second > first)
        tracker.received(p0, offset: 0)
        tracker.received(p0, offset: 1)
        // The abandoned work of the first assignment finishes late.
        let staleLate = tracker.completed(p0, offset: 1, generation: first)
        #expect(!staleLate, "a stale completion is refused")
        let staleFirst = tracker.completed(p0, offset: 0, generation: first)
        #expect(!staleFirst)
        #expect(tracker.inFlight(p0) == 2, "nothing of the new assignment is counted done")
        #expect(tracker.takeStorable() == [p0: 0], "the store point stays at the first record still in flight")
        let current = tracker.completed(p0, offset: 0, generation: second)
        #expect(current)
        #expect(tracker.takeStorable() == [p0: 1], "offset 1 is still being processed in this assignment")
        let neverReceived = tracker.completed(p0, offset: 7)
        #expect(!neverReceived, "an offset never received is not counted")
        #expect(tracker.inFlight == 1, "in flight never undercounts")
    }
}
