import Foundation
import InstanceAPI
import Kafka
import Testing

@testable import Pipeline

/// Issue 34: a dead letter the worker writes (`DeadLetter`'s makers) reads back as what it was made of.
@Suite("Dead letters made and read in one place")
struct DeadLetterMakeTests {
    let origin = KafkaTopicPartition(topic: "requests", partition: 3)

    @Test("a leftover reads back as retry-exhausted with its request, error, attempts and codes, and replays to its topic")
    func leftover() throws {
        let request = PipelineRequest(id: "r-9", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t2"], priorAttempts: 4)
        let letter = DeadLetter.leftover(
            request, key: Array("movies".utf8), from: origin, offset: 12, lastError: "UNAVAILABLE: 503", attempts: 4,
            codes: ["INTERNAL", "UNAVAILABLE"])
        #expect(letter.kind == .retryExhausted && letter.items == 2 && !DeadLetter.isStub(letter))
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 5, key: letter.key, value: letter.value, headers: letter.headers))
        #expect(read.kind == .retryExhausted && read.originalTopic == "requests" && read.requestID == "r-9")
        #expect(read.error == "UNAVAILABLE: 503" && read.attempts == 4 && read.codes == ["INTERNAL", "UNAVAILABLE"] && read.omittedBytes == nil)
        #expect(read.request == request)
        #expect(letter.headers.string(DeadLetterHeader.originalPartition) == "3" && letter.headers.string(DeadLetterHeader.originalOffset) == "12")
        let replay = try #require(read.replay())
        #expect(replay.topic == "requests" && replay.key == Array("movies".utf8))
    }

    @Test(
        "attempts past what a request may say (a forged letter's header, a request's own priorAttempts) are held at the most it may: its letter reads back, its replay decodes"
    )
    func attemptsBounded() throws {
        let request = PipelineRequest(id: "r-9", op: .installationsDelete, target: .subject(nil), items: ["fid"])
        for attempts in ["1000000000", "99999999999999999999", "-5"] {
            var letter = DeadLetter.leftover(request, key: nil, from: origin, offset: 1, lastError: "UNAVAILABLE", attempts: 1, codes: ["UNAVAILABLE"])
            letter.headers = letter.headers.filter { $0.key != DeadLetterHeader.attempts } + [KafkaHeader(key: DeadLetterHeader.attempts, string: attempts)]
            let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 0, key: letter.key, value: letter.value, headers: letter.headers))
            #expect((0...PipelineRequest.maxPriorAttempts).contains(read.attempts), "\(attempts): \(read.attempts)")
            let replay = try #require(read.replay())
            guard case .success(let replayed) = RequestDecoder().decode(replay.value ?? []) else {
                Issue.record("attempts \(attempts): the replay does not decode: \(RequestDecoder().decode(replay.value ?? []))")
                continue
            }
            #expect(replayed.priorAttempts <= PipelineRequest.maxPriorAttempts)
        }
        // A request that already says the most: its own dead letter still reads back whole.
        let most = PipelineRequest(
            id: "r-8", op: .installationsDelete, target: .subject(nil), items: ["fid"], priorAttempts: PipelineRequest.maxPriorAttempts)
        let record = KafkaRecord(topic: "requests", partition: 3, offset: 2, key: nil, value: Array(most.jsonBody()))
        var state = RequestState(request: most, record: record, generation: .first, receivedAt: Date())
        state.finish(0..<1, ItemAnswer(ItemResult(.unavailable)), attempts: 3, lastError: "UNAVAILABLE", at: Date())
        let leftover = try #require(state.deadLetter())
        #expect(leftover.request.batch == nil)
        #expect(leftover.attempts <= PipelineRequest.maxPriorAttempts && leftover.request.priorAttempts <= PipelineRequest.maxPriorAttempts)
        guard case .success = RequestDecoder().decode(Array(leftover.request.jsonBody())) else {
            Issue.record("its dead letter's request does not decode")
            return
        }
    }

    @Test("a rejected record keeps its bytes as read; a duplicate holds its request, an undecodable one none")
    func rejected() {
        let request = PipelineRequest(id: "r-1", op: .installationsDelete, target: .subject(nil), items: ["fid"])
        let record = KafkaRecord(topic: "requests", partition: 3, offset: 8, key: [1, 2], value: Array(request.jsonBody()))
        let duplicate = DeadLetter.rejected(record, RequestRejection(field: "id", reason: "in flight", requestID: "r-1"), kind: .duplicate)
        #expect(duplicate.key == [1, 2] && duplicate.value == record.value && duplicate.items == 1)
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 0, key: duplicate.key, value: duplicate.value, headers: duplicate.headers))
        #expect(read.kind == .duplicate && read.request == request && read.attempts == 0 && read.codes.isEmpty && read.error == "id: in flight")
        let garbage = KafkaRecord(topic: "requests", partition: 3, offset: 9, key: nil, value: Array("{".utf8))
        let undecodable = DeadLetter.rejected(garbage, RequestRejection(field: nil, reason: "not JSON"), kind: .undecodable)
        let back = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 1, key: nil, value: undecodable.value, headers: undecodable.headers))
        #expect(back.kind == .undecodable && back.request == nil && back.requestID == nil && back.replay() == nil)
    }

    @Test("a dead letter without a key is keyed by its original position for a topic that takes none without; a replay reads that key as none")
    func keyedByPosition() throws {
        let request = PipelineRequest(id: "s-1", op: .topicsSubscribe, target: .topic("movies"), items: ["t1"])
        let partition = KafkaTopicPartition(topic: "requests", partition: 2)
        let keyless = DeadLetter.leftover(request, key: nil, from: partition, offset: 40, lastError: "UNAVAILABLE", attempts: 3, codes: ["UNAVAILABLE"])
        let keyed = DeadLetter.keyedByPosition(keyless)
        #expect(keyed.key == Array("requests/2/40".utf8) && keyed.value == keyless.value && keyed.headers == keyless.headers)
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 5, key: keyed.key, value: keyed.value, headers: keyed.headers))
        #expect(read.originalPosition == RecordPosition(topic: "requests", partition: 2, offset: 40))
        let replay = try #require(read.replay())
        #expect(replay.key == Array("movies".utf8), "the request's own ordering key, not the position added for the dead-letter topic")

        // A letter with a key keeps it, and so does its replay, even a key that looks like a position elsewhere.
        let own = DeadLetter.leftover(request, key: Array("requests/2/41".utf8), from: partition, offset: 40, lastError: "x", attempts: 1, codes: [])
        #expect(DeadLetter.keyedByPosition(own).key == own.key)
        let ownRead = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 6, key: own.key, value: own.value, headers: own.headers))
        #expect(try #require(ownRead.replay()).key == own.key)
        // A stub keeps the position it stands for.
        #expect(DeadLetter.keyedByPosition(DeadLetter.stub(of: keyless)).key == Array("requests/2/40".utf8))
    }

    @Test("a leftover the worker accepted under its own larger limits reads back with its request, to be replayed")
    func leftoverPastTheDefaultLimits() throws {
        // 5,000 deletions: past the default max-outcome-bytes, within a pipeline's 4,000,000.
        let request = PipelineRequest(id: "big", op: .installationsDelete, target: .subject("s"), items: (0..<5_000).map { "f\($0)" })
        #expect(throws: Never.self) { try RequestDecoder(maxRecordBytes: 1 << 20, maxOutcomeBytes: 4_000_000).decode(Array(request.jsonBody())).get() }
        let letter = DeadLetter.leftover(request, key: nil, from: origin, offset: 1, lastError: "UNAVAILABLE", attempts: 8, codes: ["UNAVAILABLE"])
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 0, key: letter.key, value: letter.value, headers: letter.headers))
        #expect(read.request == request, "a letter is read whatever limits the worker that wrote it had")
        #expect(read.replay() != nil)
    }

    @Test("a request the worker accepts stays acceptable as its replay, which names itself in replayOf and may join a batch")
    func replayStaysWithinTheBound() throws {
        // An id of 512 bytes and as many deletions as the default bound takes without replayOf.
        let id = String(repeating: "r", count: RequestID.maxBytes)
        var count = 1_000
        func request(_ items: Int) -> PipelineRequest {
            PipelineRequest(id: id, op: .installationsDelete, target: .subject("s"), items: (0..<items).map { "f\(10_000 + $0)" })
        }
        while case .success = RequestDecoder().decode(Array(request(count + 1).jsonBody())) { count += 1 }
        let accepted = request(count)
        let letter = DeadLetter.leftover(accepted, key: nil, from: origin, offset: 1, lastError: "UNAVAILABLE", attempts: 8, codes: ["UNAVAILABLE"])
        let read = DeadLetter(KafkaRecord(topic: "dlq", partition: 0, offset: 0, key: letter.key, value: letter.value, headers: letter.headers))
        let replay = try #require(read.replay(batch: "replay-dlq-" + String(repeating: "x", count: BatchName.maxBytes - 11)))
        #expect(throws: Never.self) { try RequestDecoder().decode(replay.value ?? []).get() }
    }

    @Test("the worker's dead letter keeps its request's batch: a cancel of the batch holds for its replay")
    func leftoverKeepsTheBatch() throws {
        let request = PipelineRequest(id: "r-7", op: .installationsDelete, target: .subject("user-42"), items: ["fid"], batch: "gdpr-7")
        let record = KafkaRecord(topic: "requests", partition: 3, offset: 2, key: nil, value: Array(request.jsonBody()))
        var state = RequestState(request: request, record: record, generation: .first, receivedAt: Date())
        state.finish(0..<1, ItemAnswer(ItemResult(.unavailable)), attempts: 3, lastError: "UNAVAILABLE", at: Date())
        #expect(try #require(state.deadLetter()).request.batch == "gdpr-7")
    }
}
