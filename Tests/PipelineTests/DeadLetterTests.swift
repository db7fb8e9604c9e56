import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

@Suite("Dead letters read back, selected and replayed")
struct DeadLetterTests {
    private func letter(codes: String?, op: RequestOp = .topicsSubscribe, replayOf: String? = nil, at time: Date = .now, kind: String = "retry-exhausted")
        -> DeadLetter
    {
        let request = PipelineRequest(
            id: "r-1", op: op, target: op == .topicsSubscribe ? .topic("movies") : .subject("s-1"), items: ["t1", "t2"], replayOf: replayOf, priorAttempts: 2)
        var headers = [
            KafkaHeader(key: DeadLetterHeader.kind, string: kind),
            KafkaHeader(key: DeadLetterHeader.originalTopic, string: "requests"),
            KafkaHeader(key: DeadLetterHeader.attempts, string: "6"),
            KafkaHeader(key: DeadLetterHeader.requestID, string: "r-1"),
        ]
        if let codes { headers.append(KafkaHeader(key: DeadLetterHeader.codes, string: codes)) }
        let record = KafkaRecord(
            topic: "dlq", partition: 1, offset: 7, key: Array("movies".utf8), value: Array(request.jsonBody()), headers: headers, timestamp: time)
        return DeadLetter(record)
    }

    @Test("the replay keeps the id and key, links the original and carries the attempts spent")
    func replay() throws {
        let replay = try #require(letter(codes: "RESOURCE_EXHAUSTED").replay())
        #expect(replay.topic == "requests" && replay.key == Array("movies".utf8))
        let request = try RequestDecoder().decode(try #require(replay.value)).get()
        #expect(request.id == "r-1" && request.replayOf == "r-1" && request.priorAttempts == 6 && request.items == ["t1", "t2"])
        #expect(replay.headers.string(DeadLetterHeader.replayedFrom) == "dlq/1/7")
        // A replay is always of its own id, what reconcile counts as one: a record that named
        // another request in replayOf was a request of its own (nothing showed it carried that
        // request's items), and its dead letter replays it.
        let again = try RequestDecoder().decode(try #require(letter(codes: "INTERNAL", replayOf: "r-0").replay()?.value)).get()
        #expect(again.id == "r-1" && again.replayOf == "r-1")
        #expect(letter(codes: nil, kind: "undecodable").replay() == nil)
    }

    @Test("the kind is read from the headers alone: missing or unknown is undecodable, as every reader counts it")
    func kindFromHeaders() {
        func record(_ headers: [KafkaHeader]) -> KafkaRecord {
            KafkaRecord(topic: "dlq", partition: 0, offset: 1, key: nil, value: Array("not json".utf8), headers: headers, timestamp: .now)
        }
        #expect(DeadLetter.kind(of: record([])) == .undecodable)
        #expect(DeadLetter.kind(of: record([KafkaHeader(key: DeadLetterHeader.kind, string: "from-a-later-version")])) == .undecodable)
        #expect(DeadLetter.kind(of: record([KafkaHeader(key: DeadLetterHeader.kind, string: "duplicate-in-flight")])) == .duplicate)
        #expect(DeadLetter(record([])).kind == DeadLetter.kind(of: record([])))
    }

    @Test("the filter selects by code, op and time; undecodable records are never selected")
    func filter() {
        let now = Date()
        let exhausted = letter(codes: "RESOURCE_EXHAUSTED,UNAVAILABLE", at: now)
        #expect(DeadLetterFilter().matches(exhausted))
        #expect(DeadLetterFilter(codes: ["UNAVAILABLE"]).matches(exhausted))
        #expect(!DeadLetterFilter(codes: ["INTERNAL"]).matches(exhausted))
        #expect(!DeadLetterFilter(ops: [.installationsDelete]).matches(exhausted))
        #expect(DeadLetterFilter(ops: [.installationsDelete]).matches(letter(codes: "INTERNAL", op: .installationsDelete)))
        #expect(DeadLetterFilter(since: now.addingTimeInterval(-1), until: now.addingTimeInterval(1)).matches(exhausted))
        #expect(!DeadLetterFilter(since: now.addingTimeInterval(1)).matches(exhausted))
        #expect(!DeadLetterFilter(until: now).matches(exhausted))
        #expect(!DeadLetterFilter().matches(letter(codes: nil, kind: "undecodable")))
        // A letter that does not name its original topic has nowhere to go: not selected (a replay
        // would count it in its manifest and never produce it).
        var nowhere = exhausted
        nowhere.originalTopic = nil
        #expect(!DeadLetterFilter().matches(nowhere) && nowhere.replay() == nil)
    }

    @Test("a valid request rejected only because its id was busy is replayable, not stranded as undecodable")
    func duplicateIsReplayable() throws {
        let duplicate = letter(codes: nil, kind: DeadLetter.Kind.duplicate.rawValue)
        #expect(duplicate.kind == .duplicate)
        #expect(DeadLetterFilter().matches(duplicate))
        #expect(!DeadLetterFilter(codes: ["INTERNAL"]).matches(duplicate), "it ended on no code")
        let replay = try RequestDecoder().decode(try #require(duplicate.replay()?.value)).get()
        #expect(replay.id == "r-1" && replay.items == ["t1", "t2"])
    }

    @Test("an erasure report: each installation's latest code and time; erased once all are gone")
    func erasure() {
        let t0 = Date(timeIntervalSince1970: 1_000)
        func deletion(_ id: String, _ lines: [(String, ResultCode, Double)], replayOf: String? = nil, subject: String = "user-42") -> Outcome {
            Outcome(
                requestID: id, op: .installationsDelete, target: ["subject": subject], status: .partial, counts: [:], failedItems: [],
                receipt: lines.map { ItemReceipt(item: $0.0, code: $0.1, at: t0.addingTimeInterval($0.2)) },
                replayOf: replayOf, backendCalls: 1, receivedAt: t0, completedAt: t0)
        }
        var report = ErasureReport(subject: "user-42")
        let ours = report.add(deletion("d-1", [("fid-a", .ok, 1), ("fid-b", .unavailable, 2)]))
        let theirs = report.add(deletion("d-9", [("fid-z", .ok, 1)], subject: "user-7"))
        #expect(ours && !theirs)
        #expect(!report.isErased && report.outstanding.map(\.item) == ["fid-b"])
        report.add(deletion("d-1", [("fid-b", .alreadyAbsent, 30)], replayOf: "d-1"))
        #expect(report.isErased && report.erasedAt == t0.addingTimeInterval(30) && report.requestIDs == ["d-1"])
    }
}
