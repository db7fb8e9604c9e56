import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

@Suite("Batches stamped on submitted and replayed records")
struct BatchStampTests {
    @Test("a submit plan names its batch on every request, and the batch does not change the ids")
    func submitPlan() throws {
        let items = (0..<5).map { "t\($0)" }
        let plan = SubmitPlan(op: .topicsSubscribe, target: .topic("movies"), recordSize: 2, items: items, batch: "movies-1")
        let requests = (1...plan.recordCount(items: items.count)).map { plan.request($0, of: items) }
        #expect(requests.map(\.batch) == ["movies-1", "movies-1", "movies-1"])
        #expect(plan.idPrefix == SubmitPlan(op: .topicsSubscribe, target: .topic("movies"), recordSize: 2, items: items).idPrefix)
        let decoded = try RequestDecoder().decode(Array(requests[0].jsonBody())).get()
        #expect(decoded.batch == "movies-1")
    }

    @Test("a replay names the replay's batch instead of the original's; without one it keeps the original's")
    func replay() throws {
        let original = PipelineRequest(id: "r-1", op: .topicsSubscribe, target: .topic("movies"), items: ["t1"], batch: "first-run")
        let record = KafkaRecord(
            topic: "dlq", partition: 0, offset: 3, key: Array("movies".utf8), value: Array(original.jsonBody()),
            headers: [
                KafkaHeader(key: DeadLetterHeader.kind, string: "retry-exhausted"), KafkaHeader(key: DeadLetterHeader.originalTopic, string: "requests"),
                KafkaHeader(key: DeadLetterHeader.attempts, string: "3"),
            ])
        let letter = DeadLetter(record)
        let stamped = try RequestDecoder().decode(try #require(letter.replay(batch: "replay-2")?.value)).get()
        #expect(stamped.batch == "replay-2" && stamped.replayOf == "r-1")
        let kept = try RequestDecoder().decode(try #require(letter.replay()?.value)).get()
        #expect(kept.batch == "first-run")
    }
}
