import Foundation
import InstanceAPI
import Pipeline
import Testing

@Suite("Request decoding and validation")
struct RequestDecoderTests {
    let decoder = RequestDecoder(maxRecordBytes: 4_096, maxItems: 1_000)

    func decode(_ text: String) -> Result<PipelineRequest, RequestRejection> { decoder.decode(Array(text.utf8)) }

    @Test(
        "every op decodes, and its wire form decodes back to the same request",
        arguments: [
            PipelineRequest(id: "r1", op: .installationsDelete, target: .subject("user-42"), items: ["cR5dLwyqQh2wVz0W3Jc8ak"]),
            PipelineRequest(id: "r2", op: .installationsDelete, target: .subject(nil), items: ["a", "b"]),
            PipelineRequest(id: "r3", op: .topicsSubscribe, target: .topic("movies"), items: ["t1", "t2"]),
            PipelineRequest(id: "r4", op: .topicsUnsubscribe, target: .topic("news"), items: ["t1"], replayOf: "r0", priorAttempts: 5),
            PipelineRequest(id: "r5", op: .apnsImport, target: .apns(application: "com.example", sandbox: true), items: ["abcd"]),
            PipelineRequest(id: "r6", op: .groupsCreate, target: .group(name: "user-1", key: nil), items: ["t1"]),
            PipelineRequest(id: "r7", op: .groupsAdd, target: .group(name: "user-1", key: "APA91b"), items: ["t2"]),
            PipelineRequest(id: "r8", op: .groupsRemove, target: .group(name: "user-1", key: "APA91b"), items: ["t2"]),
            PipelineRequest(id: "r9", op: .instancesInfo, target: .info(details: true), items: ["t1"]),
            PipelineRequest(id: "r10", op: .groupsExport, target: .export(byKey: false), items: ["user-1", "user-2"]),
            PipelineRequest(id: "r11", op: .groupsExport, target: .export(byKey: true), items: ["APA91b"]),
        ])
    func roundTrip(request: PipelineRequest) throws {
        #expect(try decoder.decode([UInt8](request.jsonBody())).get() == request)
    }

    @Test("a /topics/ prefix is accepted and removed")
    func topicPrefix() throws {
        let request = try decode(#"{"id": "a", "op": "topics.subscribe", "topic": "/topics/movies", "tokens": ["t"]}"#).get()
        #expect(request.target == .topic("movies"))
    }

    @Test(
        "each kind of bad input is rejected with the field and value named, the id kept when readable",
        arguments: [
            ("not json", nil, "malformed JSON", nil),
            ("[1, 2]", nil, "must be a JSON object", nil),
            (#"{"op": "topics.subscribe", "topic": "m", "tokens": ["t"]}"#, "id", "is required", nil),
            (#"{"id": 7, "op": "topics.subscribe", "topic": "m", "tokens": ["t"]}"#, "id", "got 7", nil),
            (#"{"id": "x", "op": "topics.explode", "topic": "m", "tokens": ["t"]}"#, "op", "unknown op 'topics.explode'", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "tokens": ["t"]}"#, "topic", "is required", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "bad name", "tokens": ["t"]}"#, "topic", "'bad name' is not a topic name", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": []}"#, "tokens", "must not be empty", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": "t"}"#, "tokens", "must be an array", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", 42]}"#, "tokens[1]", "got 42", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", ""]}"#, "tokens[1]", "non-empty string", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t", "", 42]}"#, "tokens[1]", "got \"\"", "x"),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": [null, ""]}"#, "tokens[0]", "got null", "x"),
            (#"{"id": "x", "op": "installations.delete", "tokens": ["t"]}"#, "installations", "is required", "x"),
            (#"{"id": "x", "op": "apns.import", "application": "a", "apnsTokens": ["ab"]}"#, "sandbox", "is required", "x"),
            (#"{"id": "x", "op": "apns.import", "application": "a", "sandbox": "yes", "apnsTokens": ["ab"]}"#, "sandbox", "must be true or false", "x"),
            (
                #"{"id": "x", "op": "groups.add", "notificationKeyName": "g", "notificationKey": "", "tokens": ["t"]}"#, "notificationKey",
                "non-empty string when present", "x"
            ),
            (
                #"{"id": "x", "op": "groups.create", "notificationKeyName": "g", "tokens": [\#((0..<21).map { "\"t\($0)\"" }.joined(separator: ","))]}"#,
                "tokens", "at most 20 members, got 21", "x"
            ),
            (#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["t"], "priorAttempts": -1}"#, "priorAttempts", "non-negative integer", "x"),
            (#"{"id": "x", "op": "groups.export", "tokens": ["g"]}"#, "groups", "is required", "x"),
            (#"{"id": "x", "op": "groups.export", "groupsBy": "id", "groups": ["g"]}"#, "groupsBy", "'id' is not notificationKeyName", "x"),
        ] as [(String, String?, String, String?)])
    func rejections(text: String, field: String?, reason: String, id: String?) {
        guard case .failure(let rejection) = decode(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(rejection.field == field)
        #expect(rejection.reason.contains(reason), "\(rejection)")
        #expect(rejection.requestID == id)
    }

    @Test("oversized records and item lists are refused; arbitrary bytes never trap")
    func limits() {
        let big = #"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": [""# + String(repeating: "a", count: 5_000) + #""]}"#
        #expect(decode(big).failureReason?.contains("exceeds the limit of 4096 bytes") == true)
        let many = RequestDecoder(maxItems: 3).decode(Array(#"{"id": "x", "op": "topics.subscribe", "topic": "m", "tokens": ["a","b","c","d"]}"#.utf8))
        #expect(many.failureReason?.contains("more than the limit of 3") == true)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if case .success = decoder.decode(bytes) { Issue.record("random bytes accepted: \(bytes)") }
        }
    }
}

extension Result where Failure == RequestRejection {
    var failureReason: String? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}
