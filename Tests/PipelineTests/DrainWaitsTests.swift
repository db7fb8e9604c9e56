import Testing

@testable import Pipeline

/// `DrainWaits` alone: each drain ends once, whichever way.
@Suite("DrainWaits: the drains a worker waits for, each ended once")
struct DrainWaitsTests {
    @Test("a drain ends once: by end or by expire, never both; ids pick by condition, in order")
    func endsOnce() {
        var waits = DrainWaits()
        let all = waits.begin(.all)
        let revoke = waits.begin(.partitions([], []))
        let late = waits.begin(.all)
        #expect(waits.ids { $0 == .all } == [all, late])
        let ended = waits.end([late, all], drained: false)
        let endings = ended.compactMap { if case .drainEnded(let id, let drained) = $0 { "\(id) \(drained)" } else { nil } }
        #expect(endings == ["\(late) false", "\(all) false"], "in the order asked")
        #expect(waits.end([all], drained: true).isEmpty, "an ended drain does not end again")
        let expiredEnded = waits.expire(all)
        #expect(!expiredEnded, "nor expire")
        let expired = waits.expire(revoke)
        #expect(expired)
        #expect(waits.end([revoke], drained: true).isEmpty && waits.ids { _ in true }.isEmpty)
    }
}
