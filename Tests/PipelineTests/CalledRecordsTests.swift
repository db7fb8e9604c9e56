import Testing

@testable import Pipeline

@Suite("CalledRecords: the records whose abandoned delivery started a call, bounded")
struct CalledRecordsTests {
    private func at(_ offset: Int64) -> RecordPosition { RecordPosition(topic: "requests", partition: 0, offset: offset) }

    @Test("keeps what it is given until asked once, and at most its bound, forgetting the oldest")
    func bounded() {
        var records = CalledRecords()
        records.insert(at(1))
        #expect(records.remove(at(1)) && !records.remove(at(1)), "asked once")
        for offset in 0..<Int64(CalledRecords.most + 10) { records.insert(at(offset)) }
        #expect((0..<10).allSatisfy { !records.remove(at($0)) }, "the oldest are forgotten past the bound")
        #expect(records.remove(at(10)) && records.remove(at(Int64(CalledRecords.most + 9))))
    }
}
