import Foundation
import Testing
import WireJSON

@testable import InstanceAPI
@testable import Pipeline

/// Every hot wire type with a hand writer (the outcome, the batch bodies) against its Codable
/// keys: the names a full value is written with are exactly its `CodingKeys`, at every level, so a
/// field added to the Codable form and not to the writer (or the reverse) fails here, without a
/// list of names kept by hand. Hand readers read back what `JSONEncoder` writes of a full value.
/// Requests, which have no Codable form, are held to `PipelineRequest.Field` and
/// `RequestOp.members` the same way. A new hand writer or reader gets a test here.
@Suite("Hand writers write every Codable field")
struct WireFieldParityTests {
    /// Expects the members of the object `value` to be named exactly by `Keys`, naming the
    /// difference: a name only in `Keys` is a field the writer leaves out (or the test's value
    /// does not set), a name only written is a field the Codable form does not know.
    private static func expectNames<Keys: CodingKey & CaseIterable>(
        of value: JSONValue?, _ keys: Keys.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .object(let members)? = value else {
            Issue.record("not an object: \(String(describing: value))", sourceLocation: sourceLocation)
            return
        }
        let written = Set(members.keys)
        let declared = Set(keys.allCases.map(\.stringValue))
        #expect(
            written == declared, "not written: \(declared.subtracting(written).sorted()); not Codable: \(written.subtracting(declared).sorted())",
            sourceLocation: sourceLocation)
    }

    /// An outcome with every optional field set, so the writer leaves none out.
    private static func fullOutcome() -> Outcome {
        let now = Date(timeIntervalSince1970: 1_795_413_917.842)
        var outcome = Outcome(
            requestID: "r-1", op: .installationsDelete, target: ["subject": "s"], status: .partial, counts: ["OK": 1, "NOT_FOUND": 1],
            failedItems: [FailedItem(index: 1, item: "b", code: .notFound, attempts: 2, message: "gone")],
            imports: ["ab": "reg"], receipt: [ItemReceipt(item: "a", code: .ok, at: now)], notificationKey: "key",
            topics: ["t": ["movies"]], groupMembers: ["g": ["t"]], reason: "why", replayOf: "r-0", duplicateOf: "requests/0/7",
            record: RecordPosition(topic: "requests", partition: 0, offset: 9), batch: "b-1",
            backendCalls: 1, receivedAt: now, completedAt: now)
        outcome.topicsOmitted = ["u"]
        return outcome
    }

    @Test("an outcome: its members, failed items and receipt lines")
    func outcome() throws {
        let outcome = Self.fullOutcome()
        let written = try JSONValue.parse(bytes: outcome.wireBytes(limit: .max))
        Self.expectNames(of: written, Outcome.CodingKeys.self)
        Self.expectNames(of: written["failedItems"]?.arrayValue?.first, FailedItem.CodingKeys.self)
        Self.expectNames(of: written["receipt"]?.arrayValue?.first, ItemReceipt.CodingKeys.self)
        #expect(String(decoding: outcome.wireBytes(limit: .max), as: UTF8.self) == String(decoding: try Outcome.encoder().encode(outcome), as: UTF8.self))
    }

    @Test("batchAdd/batchRemove requests and answers, written and read")
    func topicBatches() throws {
        let request = TopicBatchRequest(topic: "movies", tokens: ["t1", "t2"])
        Self.expectNames(of: try JSONValue.parse(bytes: request.jsonBytes()), TopicBatchRequest.CodingKeys.self)
        #expect(try TopicBatchRequest(jsonBody: JSONEncoder().encode(request)) == request)
        // Every optional field set: an entry with an error (and a success, which has none).
        let response = TopicBatchResponse(results: [.init(error: "NOT_FOUND"), .init()])
        let answer = try JSONValue.parse(bytes: Array(response.jsonBody()))
        Self.expectNames(of: answer, TopicBatchResponse.CodingKeys.self)
        Self.expectNames(of: answer["results"]?.arrayValue?.first, TopicBatchResponse.Entry.CodingKeys.self)
        let encoded = try JSONEncoder().encode(response)
        #expect(try TopicBatchResponse(jsonBody: encoded) == response)
        #expect(TopicBatchResponse.usualResults(Array(encoded)).map(Array.init) == response.results, "the fast path reads it too")
    }

    @Test("batchImport requests and answers, written and read")
    func imports() throws {
        let request = try JSONValue.parse(bytes: ImportRequest(application: "com.example", sandbox: true, apnsTokens: ["ab"]).jsonBytes())
        Self.expectNames(of: request, ImportRequest.CodingKeys.self)
        // Every optional field set: an entry with its registration token.
        let response = ImportResponse(results: [.init(apnsToken: "ab", status: "OK", registrationToken: "reg"), .init(apnsToken: "cd", status: "INVALID")])
        let answer = try JSONValue.parse(bytes: response.jsonBytes())
        Self.expectNames(of: answer, ImportResponse.CodingKeys.self)
        Self.expectNames(of: answer["results"]?.arrayValue?.first, ImportResponse.Entry.CodingKeys.self)
        #expect(try ImportResponse(jsonBody: Array(JSONEncoder().encode(response))) == response)
    }

    @Test("a Google API error body: what JSONEncoder writes of every field is what init?(apiAnswer:) reads")
    func errorBodies() throws {
        let detail = FCMErrorBody.Detail(
            type: FCMErrorBody.fcmErrorType, errorCode: "UNREGISTERED", reason: "SERVICE_DISABLED", domain: "googleapis.com",
            metadata: ["service": "iid.googleapis.com"], resourceName: "projects/p/installations/fid")
        let body = FCMErrorBody(error: .init(code: 404, message: "gone", status: "NOT_FOUND", details: [detail]))
        let encoded = try JSONEncoder().encode(body)
        let written = try JSONValue.parse(encoded)
        Self.expectNames(of: written, FCMErrorBody.CodingKeys.self)
        Self.expectNames(of: written["error"], FCMErrorBody.Status.CodingKeys.self)
        Self.expectNames(of: written["error"]?["details"]?.arrayValue?.first, FCMErrorBody.Detail.CodingKeys.self)
        #expect(FCMErrorBody(apiAnswer: encoded) == body)
        let plain = try JSONEncoder().encode(try JSONDecoder().decode(FCMErrorBody.self, from: Data(#"{"error":"NotRegistered"}"#.utf8)))
        #expect(FCMErrorBody(apiAnswer: plain)?.errorString == "NotRegistered")
    }

    @Test("requests: jsonBody() writes each op's members (RequestOp.members) and RequestDecoder reads them back; every Field is some op's")
    func requests() throws {
        var named = Set<String>()
        for op in RequestOp.allCases {
            // Every optional member set, so the writer leaves none out.
            let target: RequestTarget =
                switch op {
                case .installationsDelete: .subject("s")
                case .topicsSubscribe, .topicsUnsubscribe: .topic("movies")
                case .apnsImport: .apns(application: "com.example", sandbox: true)
                case .groupsCreate, .groupsAdd, .groupsRemove: .group(name: "g", key: "k")
                case .instancesInfo: .info(details: true)
                case .groupsExport: .export(byKey: true)
                }
            let request = PipelineRequest(id: "r-1", op: op, target: target, items: ["t1", "t2"], replayOf: "r-0", priorAttempts: 2, batch: "b-1")
            let body = Array(request.jsonBody())
            guard case .object(let members) = try JSONValue.parse(bytes: body) else {
                Issue.record("\(op): not an object")
                continue
            }
            #expect(Set(members.keys) == op.members, "\(op)")
            #expect(Set(target.outcomeFields.keys) == Set(op.targetFields.map(\.rawValue)), "\(op): an outcome names its target as the request does")
            #expect(RequestDecoder().decode(body) == .success(request), "\(op)")
            named.formUnion(op.members)
        }
        #expect(named == Set(PipelineRequest.Field.allCases.map(\.stringValue)), "a Field no op has, or a member no Field names")
    }

    @Test("an FCM v1 subscribe body: the bytes JSONEncoder writes, with a name that needs escaping too")
    func subscription() throws {
        for name in ["projects/p/registrations/t0k3n/topicSubscriptions/movies", "projects/p/registrations/a\"b\\c/topicSubscriptions/caf%C3%A9 \u{1}"] {
            let subscription = TopicSubscriptionList.Subscription(name: name)
            let written = subscription.jsonBytes()
            Self.expectNames(of: try JSONValue.parse(bytes: written), TopicSubscriptionList.Subscription.CodingKeys.self)
            #expect(try JSONDecoder().decode(TopicSubscriptionList.Subscription.self, from: Data(written)) == subscription)
            #expect(written == Array(try JSONEncoder().encode(subscription)), "the bytes JSONEncoder writes")
        }
    }
}
