import Foundation
import InstanceAPI
import Testing

@Suite("Result taxonomy and its classifier")
struct ResultClassifierTests {
    @Test("every code round-trips its wire spelling; unknown text is kept verbatim", arguments: ResultCode.known)
    func wireSpelling(code: ResultCode) throws {
        #expect(ResultCode(rawValue: code.rawValue) == code)
        let data = try JSONEncoder().encode([code])
        #expect(try JSONDecoder().decode([ResultCode].self, from: data) == [code])
    }

    @Test("unknown codes are kept verbatim and never retried")
    func unknownVerbatim() {
        #expect(ResultCode(rawValue: "SOMETHING_NEW") == .unknown("SOMETHING_NEW"))
        #expect(ResultCode.unknown("SOMETHING_NEW").rawValue == "UNKNOWN(SOMETHING_NEW)")
        #expect(ResultCode(rawValue: "UNKNOWN(SOMETHING_NEW)") == .unknown("SOMETHING_NEW"))
        #expect(!ResultCode.unknown("X").isRetryable)
    }

    @Test("exactly RESOURCE_EXHAUSTED, INTERNAL and UNAVAILABLE are retryable; OK and ALREADY_ABSENT succeed")
    func retryable() {
        #expect(Set(ResultCode.known.filter(\.isRetryable)) == [.resourceExhausted, .internal, .unavailable])
        #expect(Set(ResultCode.known.filter(\.isSuccess)) == [.ok, .alreadyAbsent])
    }

    @Test(
        "§2.3 per-item batch errors",
        arguments: [
            (nil, ResultCode.ok), ("NOT_FOUND", .notFound), ("INVALID_ARGUMENT", .invalidArgument), ("INTERNAL", .internal),
            ("TOO_MANY_TOPICS", .tooManyTopics), ("RESOURCE_EXHAUSTED", .resourceExhausted), ("UNAVAILABLE", .unavailable),
            ("BRAND_NEW_ERROR", .unknown("BRAND_NEW_ERROR")),
        ] as [(String?, ResultCode)])
    func batchItems(error: String?, expected: ResultCode) {
        #expect(ResultClassifier.batchItem(error: error).code == expected)
        #expect(ResultClassifier.batchItem(error: error).message == error)
    }

    @Test(
        "§2.4 import statuses",
        arguments: [
            ("OK", ResultCode.ok), ("Internal Server Error", .internal), ("Invalid APNs token", .invalidArgument),
            ("RESOURCE_EXHAUSTED", .resourceExhausted), ("Service Unavailable", .unavailable), ("Mystery", .unknown("Mystery")),
        ])
    func importStatuses(status: String, expected: ResultCode) {
        #expect(ResultClassifier.importStatus(status).code == expected)
    }

    @Test(
        "§2.5 Instance ID statuses: 404 is the item's NOT_FOUND for single-item calls, the rest fail the call",
        arguments: [
            (400, ResultCode.invalidRequest, false, false), (401, .unauthenticated, false, true), (403, .permissionDenied, false, true),
            (429, .resourceExhausted, true, false), (500, .internal, true, false), (503, .unavailable, true, false),
        ])
    func instanceIDStatuses(status: Int, code: ResultCode, retryable: Bool, systemic: Bool) {
        guard case .call(let error) = ResultClassifier.instanceID(.topicRelation, status: status, body: "b", retryAfter: .seconds(3)) else {
            Issue.record("HTTP \(status) should fail the call")
            return
        }
        #expect(error.resultCode == code)
        #expect(error.isRetryable == retryable)
        #expect(error.isSystemic == systemic)
        if status == 429 || status >= 500 { #expect(error.retryAfter == .seconds(3)) }
    }

    @Test("§2.5 a 404 is NOT_FOUND for info and relation calls, a failed call for batch calls")
    func notFound() {
        #expect(ResultClassifier.instanceID(.instanceInfo, status: 404, body: "", retryAfter: nil) == .item(ItemResult(.notFound, message: "HTTP 404")))
        guard case .call(let error) = ResultClassifier.instanceID(.batchAdd, status: 404, body: "no such path", retryAfter: nil) else {
            Issue.record("a 404 on a batch call is a failed call")
            return
        }
        #expect(!error.isRetryable, "a wrong path is not retried")
    }

    @Test(
        "§2.6 FCM v1: the code comes from error string, FcmError detail, status, then HTTP status",
        arguments: [
            (404, #"{"error": "NOT_FOUND"}"#, ResultCode.notFound),
            (
                400,
                #"{"error": {"code": 400, "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}"#,
                .notFound
            ),
            (400, #"{"error": {"code": 400, "status": "INVALID_ARGUMENT"}}"#, .invalidArgument),
            (
                403,
                #"{"error": {"code": 403, "status": "PERMISSION_DENIED", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "SENDER_ID_MISMATCH"}]}}"#,
                .invalidArgument
            ),
            (400, "", .invalidArgument), (404, "", .notFound), (400, #"{"error": {"status": "TOO_MANY_TOPICS"}}"#, .tooManyTopics),
            (418, "", .unknown("HTTP 418")),
        ])
    func fcmItems(status: Int, body: String, expected: ResultCode) {
        guard case .item(let result) = ResultClassifier.fcmV1(.fcmUnsubscribe, status: status, body: Data(body.utf8), retryAfter: nil) else {
            Issue.record("HTTP \(status) \(body) should be the item's result")
            return
        }
        #expect(result.code == expected)
    }

    @Test(
        "§2.6 FCM v1: 401, a bare 403, 408, 429 and 5xx fail the call",
        arguments: [
            (401, ResultCode.unauthenticated), (403, .permissionDenied), (408, .unavailable), (429, .resourceExhausted), (500, .internal), (503, .unavailable),
            (504, .unavailable),
        ])
    func fcmCalls(status: Int, expected: ResultCode) {
        guard case .call(let error) = ResultClassifier.fcmV1(.fcmSubscribe, status: status, body: Data(), retryAfter: nil) else {
            Issue.record("HTTP \(status) should fail the call")
            return
        }
        #expect(error.resultCode == expected)
    }

    @Test("§2.6 on subscribe, 409 or ALREADY_EXISTS is success")
    func fcmAlreadySubscribed() {
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 409, body: Data(), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 400, body: Data(#"{"error": {"status": "ALREADY_EXISTS"}}"#.utf8), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.fcmV1(.fcmUnsubscribe, status: 409, body: Data(), retryAfter: nil) != .item(.ok))
    }

    @Test(
        "§3 deletion: 404 and 409 mean gone (ALREADY_ABSENT), 400 is the id's INVALID_ARGUMENT",
        arguments: [(404, ResultCode.alreadyAbsent), (409, .alreadyAbsent), (400, .invalidArgument)])
    func deletionItems(status: Int, expected: ResultCode) {
        #expect(
            ResultClassifier.deleteInstance(status: status, body: "x", retryAfter: nil)
                == .item(ItemResult(expected, message: status == 400 ? "x" : status == 404 ? "not found" : "already deleted")))
    }

    @Test(
        "§3 deletion: 401, 403, 429, 500, 503 fail the call",
        arguments: [(401, ResultCode.unauthenticated), (403, .permissionDenied), (429, .resourceExhausted), (500, .internal), (503, .unavailable)])
    func deletionCalls(status: Int, expected: ResultCode) {
        guard case .call(let error) = ResultClassifier.deleteInstance(status: status, body: "", retryAfter: nil) else {
            Issue.record("HTTP \(status) should fail the call")
            return
        }
        #expect(error.resultCode == expected)
    }

    @Test(
        "§4 device-group refusals",
        arguments: [
            (#"{"error":"notification_key already exists"}"#, ResultCode.alreadyExists), (#"{"error":"maximum number of members exceeded"}"#, .groupFull),
            (#"{"error":"notification_key not found"}"#, .notFound), ("invalid registration id", .invalidArgument),
        ])
    func deviceGroups(body: String, expected: ResultCode) {
        guard case .item(let result) = ResultClassifier.deviceGroup(status: 400, body: body, retryAfter: nil) else {
            Issue.record("a 400 is the operation's result")
            return
        }
        #expect(result.code == expected)
    }
}
