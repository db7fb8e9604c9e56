import Foundation
import Kafka
import Testing

/// The decision behind reading from a time: which broker answer to trust, and the binary search
/// over offsets where the broker cannot look up by time.
@Suite("Finding a partition's first offset at a time")
struct KafkaTimeSeekTests {
    private let time = Date(timeIntervalSince1970: 1_000)

    /// Runs a seek to its end against `stamps` (offset → timestamp; absent offsets hold no record).
    private func run(_ seek: KafkaTimeSeek, _ stamps: [Int64: Date?], high: Int64) -> (start: Int64, probes: [Int64]) {
        var seek = seek
        var probes: [Int64] = []
        while case .probe(let offset) = seek.step {
            probes.append(offset)
            let first = stamps.keys.filter { $0 >= offset && $0 < high }.min()
            seek.observe(first.map { ($0, stamps[$0]!) })
            #expect(probes.count < 100, "the search does not end")
            if probes.count >= 100 { break }
        }
        guard case .start(let start) = seek.step else { return (-1, probes) }
        return (start, probes)
    }

    private func stamps(_ seconds: [Double], from low: Int64 = 0) -> [Int64: Date?] {
        Dictionary(uniqueKeysWithValues: seconds.enumerated().map { (low + Int64($0.offset), Date(timeIntervalSince1970: $0.element)) })
    }

    @Test("an offset the broker answers is trusted without reading anything; clamped to what the partition holds")
    func brokerOffset() {
        #expect(KafkaTimeSeek(time: time, low: 10, high: 50, answer: .offset(30)).step == .start(30))
        #expect(KafkaTimeSeek(time: time, low: 10, high: 50, answer: .offset(3)).step == .start(10))
        #expect(KafkaTimeSeek(time: time, low: 10, high: 50, answer: .offset(70)).step == .start(50))
    }

    @Test("an empty partition starts at its end, whatever the answer")
    func empty() {
        #expect(KafkaTimeSeek(time: time, low: 7, high: 7, answer: .none).step == .start(7))
        #expect(KafkaTimeSeek(time: time, low: 7, high: 7, answer: .unsupported).step == .start(7))
    }

    @Test("'none' is checked against the last record: older than the time, it holds and reading starts at the end after one probe")
    func noneHolds() {
        let seek = KafkaTimeSeek(time: time, low: 0, high: 100, answer: .none)
        #expect(seek.step == .probe(99))
        let result = run(seek, stamps((0..<100).map { Double($0) }), high: 100)
        #expect(result.start == 100)
        #expect(result.probes == [99])
    }

    @Test("'none' while the last record is at or after the time: the broker cannot look up by time; a binary search finds the exact start")
    func noneContradicted() {
        // 1 000 records one second apart from 500 s: the first at or after 1 000 s is offset 500.
        let records = stamps((0..<1_000).map { 500 + Double($0) })
        for answer in [KafkaTimeSeek.Answer.none, .unsupported] {
            let result = run(KafkaTimeSeek(time: time, low: 0, high: 1_000, answer: answer), records, high: 1_000)
            #expect(result.start == 500, "\(answer)")
            #expect(result.probes.count <= 12, "O(log n) probes, got \(result.probes.count)")
        }
    }

    @Test("every record at or after the time: starts at the first offset held")
    func allLater() {
        let result = run(KafkaTimeSeek(time: time, low: 40, high: 60, answer: .none), stamps((0..<20).map { 2_000 + Double($0) }, from: 40), high: 60)
        #expect(result.start == 40)
    }

    @Test("the search is exact for every boundary, with gaps in the offsets (compaction, transaction markers)")
    func everyBoundary() {
        // Offsets 0, 3, 6, …: records every third offset, stamped 1 s apart from 990 s.
        let records = Dictionary(uniqueKeysWithValues: (0..<40).map { (Int64($0 * 3), Optional(Date(timeIntervalSince1970: 990 + Double($0)))) })
        for boundary in 0...41 {
            let asked = Date(timeIntervalSince1970: 990 + Double(boundary) - 0.5)
            let result = run(KafkaTimeSeek(time: asked, low: 0, high: 120, answer: .none), records, high: 120)
            let expected = records.filter { $0.value! >= asked }.keys.min()
            if let expected {
                // Starting anywhere after the last older record and at or before the first later one reads exactly the later ones.
                let lastOlder = records.filter { $0.value! < asked }.keys.max() ?? -1
                #expect(result.start > lastOlder && result.start <= expected, "boundary \(boundary): \(result.start)")
            } else {
                #expect(result.start > 117, "boundary \(boundary): nothing later, no record is read: \(result.start)")
            }
        }
    }

    @Test("a last offset holding no record (a transaction marker) leads to a search over the whole partition")
    func markerAtTheEnd() {
        var records = stamps((0..<99).map { 900 + Double($0) })
        records[99] = nil
        let result = run(KafkaTimeSeek(time: time, low: 0, high: 100, answer: .none), records.compactMapValues { $0 }, high: 100)
        #expect(result.start == 99 || result.start == 100, "every record is older: none is read (\(result.start))")
        #expect(result.probes.first == 99 && result.probes.count > 1)
    }

    @Test("a record without a timestamp counts as at or after the time: reading starts earlier, never later")
    func missingTimestamp() {
        // The last record has none: the broker's -1 is not taken on its word, and the search reads it.
        var records = stamps((0..<100).map { 900 + Double($0) })
        records[99] = .some(nil)
        let result = run(KafkaTimeSeek(time: time, low: 0, high: 100, answer: .none), records, high: 100)
        #expect(result.start == 99)
        // In the middle of the search, one counts as later: the start is not after it.
        records[99] = .some(Date(timeIntervalSince1970: 1_500))
        records[50] = .some(nil)
        let middle = run(KafkaTimeSeek(time: time, low: 0, high: 100, answer: .none), records, high: 100)
        #expect(middle.start <= 99)
        // Judged by its neighbours when no probe reads it (here none does): nothing is claimed of it.
        #expect(middle.probes.contains(50) == false || middle.start <= 50)
    }

    @Test("the broker's codes: an offset, -1, an unsupported lookup; any other error is not an answer")
    func answers() {
        #expect(KafkaTimeSeek.Answer(offset: 12, error: nil) == .offset(12))
        #expect(KafkaTimeSeek.Answer(offset: -1, error: nil) == KafkaTimeSeek.Answer.none)
        #expect(KafkaTimeSeek.Answer(offset: -1, error: .unsupportedVersion) == .unsupported)
        #expect(KafkaTimeSeek.Answer(offset: -1, error: .unsupportedForMessageFormat) == .unsupported)
        #expect(KafkaTimeSeek.Answer(offset: -1, error: .notLeaderForPartition) == nil)
    }
}
