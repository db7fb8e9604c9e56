import Emulator
import Foundation
import Kafka
import Pipeline
import Testing

/// Bad input of every kind: a rejected outcome naming the field, the bytes dead-lettered as read,
/// and the valid records around them unharmed.
@Suite("Pipeline end to end: poison records", .serialized)
struct PipelinePoisonTests {
    @Test("every kind of bad record is rejected and dead-lettered byte for byte; the valid ones around it complete")
    func poison() async throws {
        // Calls are slow enough that the first 'dup' is still in flight when its twin, ten records
        // later, arrives: 2 s, not 300 ms, because a loaded CI machine once took longer than
        // 300 ms between the two, and the twin then completed as a request of its own.
        try await withPipelineFixture(partitions: 1, faults: FaultPlan(latencyMilliseconds: 2_000)) { fixture in
            let tokens = fixture.seedTokens(20, prefix: "poison")
            func valid(_ id: String, _ slice: Range<Int>) -> (String, [UInt8]) {
                ("k", Array(PipelineRequest(id: id, op: .topicsSubscribe, target: .topic("p"), items: Array(tokens[slice])).jsonBody()))
            }
            let oversize = #"{"id":"big","op":"topics.subscribe","topic":"p","tokens":["\#(String(repeating: "x", count: 5_000))"]}"#
            // (value, readable id, field the reason names)
            let poison: [(String, String?, String?)] = [
                ("{not json", nil, nil),
                (#"{"id":"unknown-op","op":"topics.explode","topic":"p","tokens":["a"]}"#, "unknown-op", "op"),
                (#"{"id":"missing","op":"topics.subscribe","tokens":["a"]}"#, "missing", "topic"),
                (#"{"id":"mistyped","op":"apns.import","application":"a","sandbox":"yes","apnsTokens":["a"]}"#, "mistyped", "sandbox"),
                (#"{"id":"empty","op":"topics.subscribe","topic":"p","tokens":[]}"#, "empty", "tokens"),
                (#"{"id":"not-string","op":"topics.subscribe","topic":"p","tokens":["a", 7]}"#, "not-string", "tokens[1]"),
                (#"{"id":"empty-string","op":"installations.delete","installations":[""]}"#, "empty-string", "installations[0]"),
                (#"{"id":"bad-topic","op":"topics.subscribe","topic":"no spaces!","tokens":["a"]}"#, "bad-topic", "topic"),
                (oversize, nil, nil),
                (#"{"id":"dup","op":"topics.subscribe","topic":"p","tokens":["poison-19"]}"#, "dup", "id"),
            ]
            var records = [valid("before", 0..<5), valid("dup", 5..<10)]
            records += poison.map { ("k", Array($0.0.utf8)) }
            records.append(valid("after", 10..<15))
            let worker = try fixture.startWorker(
                fixture.pipeline {
                    $0.maxRecordBytes = 4_096
                    $0.linger = .milliseconds(5)
                })
            let reports = try await fixture.produce(records)
            let noIDs = poison.indices.filter { poison[$0].1 == nil }.map { index in
                RecordPosition(reports[index + 2]).description
            }
            let ids = ["before", "after"] + poison.compactMap(\.1).filter { $0 != "dup" } + noIDs
            _ = try await fixture.waitForOutcomes(ids + ["dup"])
            let letters = try await fixture.waitForDeadLetters(poison.count)
            // Both outcomes of 'dup': the original's and the twin's rejection.
            try await fixture.waitForRead({ _ in "both outcomes of 'dup'" }) { $0.outcomes.count { $0.requestID == "dup" } >= 2 }
            await worker.stop()

            let outcomes = fixture.outcomes
            for id in ["before", "after"] { #expect(outcomes.first { $0.requestID == id }?.status == .succeeded) }
            #expect(fixture.backend.subscribers(of: "p") == Array(tokens[0..<15]).sorted())
            for (value, id, field) in poison {
                let outcomeID = id ?? noIDs[poison.filter { $0.1 == nil }.firstIndex { $0.0 == value }!]
                let rejected = try #require(outcomes.first { $0.requestID == outcomeID && $0.status == .rejected }, "no rejection for \(outcomeID)")
                if let field { #expect(rejected.reason?.hasPrefix(field + ":") == true, "\(rejected.reason ?? "")") }
                let letter = try #require(letters.first { $0.value == Array(value.utf8) }, "\(outcomeID) not dead-lettered byte for byte")
                // A valid request whose id was busy is kept replayable (issue 17); the others are undecodable.
                let kind: DeadLetter.Kind = id == "dup" ? .duplicate : .undecodable
                #expect(letter.headers.string(DeadLetterHeader.kind) == kind.rawValue)
                #expect((DeadLetter(letter).replay() != nil) == (id == "dup"), "only the duplicate can be replayed as it is")
                #expect(letter.headers.string(DeadLetterHeader.error) == rejected.reason)
            }
            let dup = outcomes.filter { $0.requestID == "dup" }
            #expect(Set(dup.map(\.status)) == [.succeeded, .rejected])
            #expect(dup.first { $0.status == .rejected }?.reason?.contains("still in flight") == true)
            #expect(outcomes.first { $0.requestID == noIDs[1] }?.reason?.contains("exceeds the limit of 4096 bytes") == true)
        }
    }
}
