import Testing

@testable import Pipeline

@Suite("CalledRecords: the records whose abandoned delivery started a call, bounded")
struct CalledRecordsTests {
    private func at(_ offset: Int64) -> RecordPosition { RecordPosition(topic: "requests", partition: 0, offset: offset) }

    @Test("keeps what it is given until asked once, and at most its bound, forgetting the oldest")
    func bounded() {
        var records = CalledRecords()
        records.insert(at(1))
        let (first, second) = (records.remove(at(1)), records.remove(at(1)))
        #expect(first && !second, "asked once")
        for offset in 0..<Int64(CalledRecords.most + 10) { records.insert(at(offset)) }
        for offset in Int64(0)..<10 {
            let kept = records.remove(at(offset))
            #expect(!kept, "the oldest are forgotten past the bound: \(offset)")
        }
        let (oldestKept, newest) = (records.remove(at(10)), records.remove(at(Int64(CalledRecords.most + 9))))
        #expect(oldestKept && newest)
    }

    @Test("a record removed and kept again is kept as the newest: evicting its old insertion does not forget it")
    func keptAgainIsNewest() {
        var records = CalledRecords()
        for offset in 0..<Int64(CalledRecords.most) { records.insert(at(offset)) }
        let removed = records.remove(at(0))
        records.insert(at(0))
        records.insert(at(Int64(CalledRecords.most)))
        let (again, oldest) = (records.remove(at(0)), records.remove(at(1)))
        #expect(removed && again, "kept again after its first insertion")
        #expect(!oldest, "the oldest kept is the one forgotten")
    }
}
