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

    @Test("--json prints an outcome as one line: the CR and LF a producer put between its tokens become spaces, and it reads the same")
    func oneLine() throws {
        let decoder = Outcome.decoder()
        let wire = String(decoding: outcome(counts: ["OK": 2]), as: UTF8.self)
        let spread = Array(wire.replacingOccurrences(of: ",", with: ",\r\n  ").replacingOccurrences(of: "{", with: "{\n").utf8)
        let read = try #require(Outcome.read(spread, using: decoder))
        let line = Outcome.line(spread)
        #expect(!line.contains("\n") && !line.contains("\r"), "\(line)")
        #expect(Outcome.read(Array(line.utf8), using: decoder) == read)
        #expect(Outcome.line(Array(wire.utf8)) == wire, "an outcome on one line is printed as it is")
    }
}
