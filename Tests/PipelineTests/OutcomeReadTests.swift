import Foundation
import Testing

@testable import Pipeline

@Suite("Outcomes read from a topic anyone may produce to: counts a worker never writes are not outcomes")
struct OutcomeReadTests {
    private func outcome(counts: [String: Int]) -> [UInt8] {
        let outcome = Outcome(
            requestID: "r-1", op: .topicsSubscribe, target: ["topic": "t"], status: .succeeded, counts: counts, failedItems: [], backendCalls: 1,
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000), completedAt: Date(timeIntervalSince1970: 1_800_000_001))
        return outcome.wireBytes(limit: .max)
    }

    @Test("an outcome's counts are 0 or more and at most mostCountedItems together, else it reads as none")
    func boundedCounts() throws {
        let decoder = Outcome.decoder()
        #expect(Outcome.read(outcome(counts: ["OK": 3, "NOT_FOUND": 1]), using: decoder)?.counts == ["OK": 3, "NOT_FOUND": 1])
        #expect(Outcome.read(outcome(counts: ["OK": Outcome.mostCountedItems]), using: decoder) != nil)
        #expect(Outcome.read(outcome(counts: ["OK": -100_000]), using: decoder) == nil, "a negative count")
        #expect(Outcome.read(outcome(counts: ["OK": Int.max, "X": 1]), using: decoder) == nil, "a sum that would overflow")
        #expect(Outcome.read(outcome(counts: ["OK": Outcome.mostCountedItems, "X": 1]), using: decoder) == nil, "more than the bound in all")
        #expect(Outcome.read(Array("{not json".utf8), using: decoder) == nil)
    }
}
