import Foundation
import InstanceAPI
import Testing
import WireJSON

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
        "a 408 says the server did not take the whole request: retried, never read as a call that may have been carried out (a 504, the upstream's timeout, may)"
    )
    func requestTimeoutNotCarriedOut() {
        for api in [BackendAPI.deviceGroup, .deleteInstance, .batchAdd] {
            let timeout = ResultClassifier.callFailure(api, status: 408, body: Data(), retryAfter: nil)
            #expect(timeout.isRetryable && !timeout.mayHaveBeenCarriedOut && timeout.resultCode == .unavailable, "\(api): \(timeout)")
            #expect(ResultClassifier.callFailure(api, status: 504, body: Data(), retryAfter: nil).mayHaveBeenCarriedOut)
        }
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
        let body = Data(#"{"error": "b"}"#.utf8)
        guard case .call(let error) = ResultClassifier.instanceID(.topicRelation, status: status, body: body, retryAfter: .seconds(3)) else {
            Issue.record("HTTP \(status) should fail the call")
            return
        }
        #expect(error.resultCode == code)
        #expect(error.isRetryable == retryable)
        #expect(error.isSystemic == systemic)
        if status == 429 || status >= 500 { #expect(error.retryAfter == .seconds(3)) }
    }

    @Test("§2.5 a 404 with the API's error body is NOT_FOUND for info and relation calls; a batch call's 404 is not the API's")
    func notFound() {
        let apiBody = Data(#"{"error": "No information found about this instance id."}"#.utf8)
        #expect(
            ResultClassifier.instanceID(.instanceInfo, item: "t", status: 404, body: apiBody, retryAfter: nil)
                == .item(ItemResult(.notFound, message: "No information found about this instance id.")))
        guard case .call(let error) = ResultClassifier.instanceID(.batchAdd, status: 404, body: apiBody, retryAfter: nil) else {
            Issue.record("a 404 on a batch call is a failed call")
            return
        }
        #expect(error.isRetryable && error.isOutage, "a wrong path is retried and counted by the breaker, never final for the items")
        guard case .call = ResultClassifier.instanceID(.instanceInfo, item: "t", status: 404, body: Data("<html>404</html>".utf8), retryAfter: nil)
        else {
            Issue.record("a proxy's 404 page says nothing about the token")
            return
        }
        // A web server's bare error, or one about another thing, is no answer about the token;
        // the code's own name, or one naming the token, is.
        for (body, isToken) in [
            (#"{"error": "Not Found"}"#, false), (#"{"error": "not found"}"#, false), (#"{"error": "Project p not found"}"#, false),
            (#"{"error": "Resource not found"}"#, false), (#"{"error": "Entity not found"}"#, false), (#"{"error": "Token not found"}"#, false),
            (#"{"error": "NOT_FOUND"}"#, true), (#"{"error": "Token t not found"}"#, true),
            (#"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#, true),
        ] {
            let verdict = ResultClassifier.instanceID(.instanceInfo, item: "t", status: 404, body: Data(body.utf8), retryAfter: nil)
            #expect((verdict.item?.code == .notFound) == isToken && (verdict.call != nil) == !isToken, "\(body): \(verdict)")
        }
    }

    @Test("§2.5 a 403 naming the token, or saying it is another project's, is the item's PERMISSION_DENIED; a bare one fails the call")
    func instanceInfoForbidden() {
        let named = Data(#"{"error": "Token t: authorization does not match the authorizedEntity of this token"}"#.utf8)
        #expect(ResultClassifier.instanceID(.instanceInfo, item: "t", status: 403, body: named, retryAfter: nil).item?.code == .permissionDenied)
        let caller = Data(#"{"error": "Authorization does not match authorizedEntity"}"#.utf8)
        #expect(
            ResultClassifier.instanceID(.instanceInfo, item: "t", status: 403, body: caller, retryAfter: nil).call?.isSystemic == true, "§2.5: the caller's")
        let iam = Data(#"{"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}}"#.utf8)
        #expect(
            ResultClassifier.instanceID(.instanceInfo, item: "t", status: 403, body: iam, retryAfter: nil).call?.isSystemic == true,
            "a word holding 't' is not the token")
        let naming = Data(#"{"error": {"code": 403, "message": "Token tok-77: Permission denied", "status": "PERMISSION_DENIED"}}"#.utf8)
        #expect(ResultClassifier.instanceID(.instanceInfo, item: "tok-77", status: 403, body: naming, retryAfter: nil).item?.code == .permissionDenied)
        #expect(ResultClassifier.instanceID(.instanceInfo, item: "tok-7", status: 403, body: naming, retryAfter: nil).call != nil, "tok-7 is not tok-77")
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
            (400, #"{"error": {"code": 400}}"#, .invalidArgument), (404, #"{"error": {"code": 404}}"#, .notFound),
            (400, #"{"error": {"status": "TOO_MANY_TOPICS"}}"#, .tooManyTopics),
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

    @Test("a Google error's message carries its status and ErrorInfo reason and domain, within the excerpt bound")
    func errorWords() throws {
        let body = Data(
            #"{"error": {"code": 403, "message": "Instance ID API has not been used", "status": "PERMISSION_DENIED", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", "domain": "googleapis.com"}]}}"#
                .utf8)
        #expect(FCMErrorBody(apiAnswer: body)?.message == "PERMISSION_DENIED (SERVICE_DISABLED, googleapis.com): Instance ID API has not been used")
        #expect(FCMErrorBody(apiAnswer: body) == (try JSONDecoder().decode(FCMErrorBody.self, from: body)), "read as Foundation reads it")
        let legacy = Data(#"{"error": "Instance ID \"fid-é\": failed"}"#.utf8)
        #expect(FCMErrorBody(apiAnswer: legacy) == (try JSONDecoder().decode(FCMErrorBody.self, from: legacy)))
        #expect(FCMErrorBody(apiAnswer: legacy)?.names("fid-é") == true && FCMErrorBody(apiAnswer: legacy)?.names("fid-") == false)
        #expect(FCMErrorBody(apiAnswer: Data(#"{"error": "tokéna"}"#.utf8))?.names("ok") == false, "inside a word, next to a non-ASCII letter")
        let long = Data(#"{"error": "\#(String(repeating: "é", count: 5_000))"}"#.utf8)
        let message = try #require(FCMErrorBody(apiAnswer: long)?.message)
        #expect(message.utf8.count <= ResultClassifier.excerptBytes + 3 && message.hasSuffix("…"), "cut by bytes, at a character")
        #expect(FCMErrorBody(apiAnswer: Data("<html>".utf8)) == nil && FCMErrorBody(apiAnswer: Data(#"{"message": "x"}"#.utf8)) == nil)
    }

    @Test("§2.6 FCM v1: an error status without the API's error body is not the API's answer: the call fails, retryable")
    func fcmNotTheAPI() {
        for status in [400, 404, 405, 409, 410, 413, 418] {
            let verdict = ResultClassifier.fcmV1(.fcmUnsubscribe, status: status, body: Data("<html>Not Found</html>".utf8), retryAfter: nil)
            #expect(verdict.call?.isRetryable == true && verdict.call?.isOutage == true, "HTTP \(status)")
        }
    }

    @Test("§2.6 on subscribe, 409 or ALREADY_EXISTS is success")
    func fcmAlreadySubscribed() {
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 409, body: Data(#"{"error": {"code": 409}}"#.utf8), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 400, body: Data(#"{"error": {"status": "ALREADY_EXISTS"}}"#.utf8), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.fcmV1(.fcmUnsubscribe, status: 409, body: Data(), retryAfter: nil) != .item(.ok))
    }

    @Test(
        "§3 deletion: the API's own 404 and 409 mean gone (ALREADY_ABSENT), its 400 is the id's INVALID_ARGUMENT",
        arguments: [
            (
                404, #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#, ResultCode.alreadyAbsent,
                "not found (HTTP 404)"
            ),
            (404, #"{"error": "Instance ID fid: failed to find"}"#, .alreadyAbsent, "not found (HTTP 404)"),
            (409, #"{"error": "Instance ID fid: already deleted"}"#, .alreadyAbsent, "already deleted (HTTP 409)"),
            (
                409, #"{"error": {"code": 409, "message": "Installation already deleted.", "status": "ALREADY_EXISTS"}}"#, ResultCode.alreadyAbsent,
                "already deleted (HTTP 409)"
            ),
            (409, #"{"error": {"code": 409, "status": "ALREADY_EXISTS"}}"#, .alreadyAbsent, "already deleted (HTTP 409)"),
            (400, #"{"error": "Instance ID \"fid\": x"}"#, .invalidArgument, #"Instance ID "fid": x"#),
            (400, #"{"error": "INVALID_ARGUMENT"}"#, .invalidArgument, "INVALID_ARGUMENT"),
            // Google's refusal of a malformed id, with the details its APIs attach: the id's, never an outage.
            (
                400,
                #"{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest"}, {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}, {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_ID"}]}}"#,
                .invalidArgument, "INVALID_ARGUMENT (INVALID_ID): Request contains an invalid argument."
            ),
            (
                400, #"{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"}}"#, .invalidArgument,
                "INVALID_ARGUMENT: Request contains an invalid argument."
            ),
        ])
    func deletionItems(status: Int, body: String, expected: ResultCode, message: String) {
        let result = ResultClassifier.deleteInstance(id: "fid", status: status, body: Data(body.utf8), retryAfter: nil).item
        #expect(result?.code == expected)
        #expect(result?.message == message, "the API's words, and its status")
    }

    @Test(
        "§3 deletion: JSON that is not the API's answer about this id is no receipt either (a gateway's 404, a conflict, a 200 error)",
        arguments: [
            (404, #"{"error": "Not Found"}"#), (404, #"{"error": {"code": 404, "message": "Not Found"}}"#),
            (409, #"{"error": {"code": 409, "status": "ABORTED"}}"#), (409, #"{"error": "conflict"}"#),
            (200, #"{"error": {"code": 404, "status": "NOT_FOUND"}}"#), (200, "<html>deleted</html>"),
        ])
    func deletionJSONThatIsNotAReceipt(status: Int, body: String) {
        #expect(ResultClassifier.deleteInstance(id: "fid", status: status, body: Data(body.utf8), retryAfter: nil).call != nil, "\(status) \(body)")
    }

    @Test(
        "§3 deletion: a 404 that is not the API's NOT_FOUND (a proxy's page, a wrong path, another status) is never an erasure receipt",
        arguments: [
            "<html><body>404 Not Found</body></html>", "", "Not Found", #"{"error": {"code": 404, "status": "UNIMPLEMENTED"}}"#, #"{"message": "x"}"#,
            "[1]",
        ])
    func deletionNotFoundWithoutTheAPI(body: String) {
        guard case .call(let error) = ResultClassifier.deleteInstance(id: "fid", status: 404, body: Data(body.utf8), retryAfter: nil) else {
            Issue.record("a 404 with body \(body) must not settle the deletion")
            return
        }
        #expect(error.isRetryable && error.isOutage)
        #expect(error.resultCode == .unavailable)
    }

    @Test("success bodies: a delete's is empty or {}; a resource's is a JSON object; pages and other JSON are neither")
    func successBodies() {
        #expect(ResultClassifier.isEmptyAnswer(Data()) && ResultClassifier.isEmptyAnswer(Data(" { }\n".utf8)))
        #expect(
            !ResultClassifier.isEmptyAnswer(Data("{".utf8)) && !ResultClassifier.isEmptyAnswer(Data("}{".utf8))
                && !ResultClassifier.isEmptyAnswer(Data("{}{}".utf8)))
        #expect(!ResultClassifier.isEmptyAnswer(Data(#"{"a":1}"#.utf8)) && !ResultClassifier.isEmptyAnswer(Data("<html/>".utf8)))
        // Blanks are JSON's whitespace, as the parser reads it: an empty body or `{}` exactly when the parser finds nothing or an empty object.
        for text in ["", " \t\r\n", "\t{\r\n}\t", "{\u{0B}}", "\u{A0}{}", "{ }x", "[]", "{}{}", "{", "}"] {
            let parsed = try? JSONValue.parse(bytes: Array(text.utf8))
            let blank = text.utf8.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            #expect(ResultClassifier.isEmptyAnswer(Data(text.utf8)) == (blank || parsed == .object([:])), "\(Array(text.utf8))")
        }
        #expect(ResultClassifier.isObjectAnswer(Data(#"{"name": "projects/p/registrations/r/topicSubscriptions/t"}"#.utf8)))
        #expect(!ResultClassifier.isObjectAnswer(Data("<html>OK</html>".utf8)) && !ResultClassifier.isObjectAnswer(Data("[]".utf8)))
    }

    @Test("§3 deletion: 200 with an empty body or a JSON object is OK; a 200 page is not the API's answer")
    func deletionOK() {
        #expect(ResultClassifier.deleteInstance(id: "fid", status: 200, body: Data(), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.deleteInstance(id: "fid", status: 200, body: Data("{}".utf8), retryAfter: nil) == .item(.ok))
        #expect(ResultClassifier.deleteInstance(id: "fid", status: 200, body: Data("<html>ok</html>".utf8), retryAfter: nil).call?.isOutage == true)
    }

    @Test("§3 deletion: a 403 naming the id (another project's) is its PERMISSION_DENIED; a 403 for the caller fails the call")
    func deletionForbidden() {
        let named = Data(#"{"error": "Instance ID \"fid-9\": project does not match instance ID"}"#.utf8)
        #expect(ResultClassifier.deleteInstance(id: "fid-9", status: 403, body: named, retryAfter: nil).item?.code == .permissionDenied)
        let iam = Data(#"{"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}}"#.utf8)
        #expect(ResultClassifier.deleteInstance(id: "fid-9", status: 403, body: iam, retryAfter: nil).call?.isSystemic == true)
        #expect(ResultClassifier.deleteInstance(id: "fid-9", status: 403, body: Data(), retryAfter: nil).call?.isSystemic == true)
    }

    @Test(
        "§3 deletion: 401, 403, 429, 500, 503 fail the call; 405, 410, 413, 501 are not the API's answer",
        arguments: [
            (401, ResultCode.unauthenticated), (403, .permissionDenied), (429, .resourceExhausted), (500, .internal), (503, .unavailable),
            (405, .unavailable), (410, .unavailable), (413, .unavailable), (501, .unavailable),
        ])
    func deletionCalls(status: Int, expected: ResultCode) {
        guard case .call(let error) = ResultClassifier.deleteInstance(id: "fid", status: status, body: Data(), retryAfter: nil) else {
            Issue.record("HTTP \(status) should fail the call")
            return
        }
        #expect(error.resultCode == expected)
        #expect(error.isOutage == (status != 429), "quota is pacing, not an outage")
    }

    @Test(
        "§4 device-group refusals",
        arguments: [
            (#"{"error":"notification_key already exists"}"#, ResultCode.alreadyExists), (#"{"error":"maximum number of members exceeded"}"#, .groupFull),
            (#"{"error":"notification_key not found"}"#, .notFound), (#"{"error":"invalid registration id"}"#, .invalidArgument),
        ])
    func deviceGroups(body: String, expected: ResultCode) {
        guard case .item(let result) = ResultClassifier.deviceGroup(status: 400, body: Data(body.utf8), retryAfter: nil) else {
            Issue.record("a 400 is the operation's result")
            return
        }
        #expect(result.code == expected)
    }
}
