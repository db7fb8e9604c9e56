import Kafka
import Testing

@testable import Pipeline

/// `iidbatch replay` names the letters of work it cannot replay (a stub without its value, a
/// value that is no request): their items are not replayed, and the operator must know which
/// (replay audit F7).
@Suite("Dead letters that cannot be replayed are named")
struct DeadLetterUnreplayableTests {
    private let origin = KafkaTopicPartition(topic: "requests", partition: 2)

    private func read(_ made: Publication.DeadLetterRecord, value: [UInt8]?? = nil) -> DeadLetter {
        DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 4, key: made.key, value: value ?? made.value, headers: made.headers))
    }

    private var leftover: Publication.DeadLetterRecord {
        let request = PipelineRequest(id: "r-1", op: .installationsDelete, target: .subject("s"), items: ["fid-a", "fid-b"])
        return DeadLetter.leftover(request, key: nil, from: origin, offset: 7, lastError: "UNAVAILABLE", attempts: 3, codes: ["UNAVAILABLE"])
    }

    @Test("a stub names where its original is; a value that is no request says so; a replayable letter and an undecodable one are not named")
    func named() throws {
        let filter = DeadLetterFilter()
        let stub = read(DeadLetter.stub(of: leftover))
        let why = try #require(filter.unreplayable(stub))
        #expect(why.contains("a stub") && why.contains("requests/2/7"), "\(why)")
        #expect(!filter.matches(stub))
        let garbled = read(leftover, value: Array("{not json".utf8))
        #expect(filter.unreplayable(garbled) == "its value is no request that can be read")
        #expect(filter.unreplayable(read(leftover)) == nil && filter.matches(read(leftover)))
        let undecodable = read(
            DeadLetter.rejected(
                KafkaRecord(topic: "requests", partition: 2, offset: 8, key: nil, value: Array("{".utf8)), RequestRejection(field: nil, reason: "not JSON"),
                kind: .undecodable))
        #expect(filter.unreplayable(undecodable) == nil, "undecodable records are counted apart, never replayed")
    }

    @Test("a letter the code condition leaves out is not named")
    func conditions() {
        #expect(DeadLetterFilter(codes: ["RESOURCE_EXHAUSTED"]).unreplayable(read(DeadLetter.stub(of: leftover))) == nil)
        #expect(DeadLetterFilter(codes: ["UNAVAILABLE"]).unreplayable(read(DeadLetter.stub(of: leftover))) != nil)
    }
}
