import Foundation
import Testing
import WireJSON

@testable import InstanceAPI

/// Answers an adversary could choose (a gateway, a wrong base URL on a Google front end, a proxy
/// speaking Google's error format), found by a read-only audit of the classifier: none may give
/// an item a success it did not have.
@Suite("Answers that are not the API's about this item are never an item's success")
struct AdversarialAnswerTests {
    @Test(
        "§3 deletion: a routing error in Google's form, a status that disagrees with the HTTP one, or the id in a quoted path is no erasure receipt",
        arguments: [
            // A Google front end's answer to a path it has no method for (a wrong base URL).
            (404, #"{"error": {"code": 404, "message": "Method not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 503, "message": "x", "status": "NOT_FOUND"}}"#),
            (409, #"{"error": {"code": 400, "message": "Installation already deleted.", "status": "ALREADY_EXISTS"}}"#),
            // A gateway echoing the request's path, its slashes escaped, or the id in a query.
            (404, #"{"error": "Cannot DELETE &#x2F;v1&#x2F;project&#x2F;p&#x2F;instanceId&#x2F;fid"}"#),
            (404, #"{"error": "Cannot DELETE &#47;v1&#47;project&#47;p&#47;instanceId&#47;fid"}"#),
            (404, #"{"error": "no route for DELETE ?instanceId=fid"}"#),
            (404, #"{"error": "no route for C:\\v1\\fid"}"#),
            // A NOT_FOUND whose details say what is missing, and it is another thing (a mistyped
            // project), or details of no known kind; another FID of letters and `_` only.
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceType": "project", "resourceName": "projects/p-typo"}]}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": "projects/p/installations/other"}]}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "CONSUMER_INVALID"}]}}"#
            ),
            (404, #"{"error": {"code": 404, "message": "Instance abcDEFghiJKLmnoPQRstuv not found", "status": "NOT_FOUND"}}"#),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "PROJECT_NOT_FOUND"}]}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "message": "Project not found"}]}}"#
            ),
            (404, #"{"error": "Instance ID \"fid\" not found, nor abcDEFghiJKL_noPQRstuv"}"#),
            // A gateway's 400 says nothing of the id: final INVALID_ARGUMENT would end a backlog unretried.
            (400, #"{"error": "Bad Request"}"#), (400, #"{"error": {"code": 503, "status": "UNAVAILABLE"}}"#),
            (400, #"{"error": {"code": 400, "message": "Invalid project ID: p-typo", "status": "INVALID_ARGUMENT"}}"#),
            (400, #"{"error": {"status": "UNAVAILABLE"}}"#),
            // Google's answer for a bad project, and a reason of its infrastructure's domain.
            (
                400,
                #"{"error": {"code": 400, "message": "Invalid resource field value in the request.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RESOURCE_PROJECT_INVALID", "domain": "googleapis.com", "metadata": {"service": "x.googleapis.com"}}]}}"#
            ),
            (
                400,
                #"{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "LOCATION_POLICY_VIOLATED", "domain": "googleapis.com"}]}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INSTANCE_NOT_FOUND", "domain": "x.googleapis.com", "metadata": {"consumer": "projects/123"}}]}}"#
            ),
            (400, #"{"error": {}}"#), (400, #"{"error": {"message": "Bad Request"}}"#), (400, #"{"error": {"code": 400, "message": "Bad Request"}}"#),
            (
                400,
                #"{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": "projects/p-typo"}]}}"#
            ),
            (
                409,
                #"{"error": {"code": 409, "message": "Installation already deleted.", "status": "ALREADY_EXISTS", "details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": "projects/p/installations/other"}]}}"#
            ),
        ])
    func deletionNoReceipt(status: Int, body: String) {
        let verdict = ResultClassifier.deleteInstance(id: "fid", status: status, body: Data(body.utf8), retryAfter: nil)
        #expect(verdict.call != nil, "HTTP \(status) \(body) gave \(String(describing: verdict.item))")
        // No answer about the id: retried and counted by the breaker, never settled for the items.
        #expect(verdict.call?.isRetryable == true && verdict.call?.isOutage == true, "HTTP \(status) \(body): \(String(describing: verdict.call))")
    }

    @Test("§3 deletion: the API's own NOT_FOUND, with or without a code, is still the receipt; so is the emulator's injected one")
    func deletionReceiptKept() {
        for body in [
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#, #"{"error": {"status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Instance fid not found", "status": "NOT_FOUND"}}"#, #"{"error": "Instance ID \"fid\": NOT_FOUND"}"#,
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceType": "installation", "resourceName": "projects/p/installations/fid"}]}}"#,
            // Details that say nothing of another thing: a request id, a reason about the instance.
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.RequestInfo", "requestId": "r-1"}, {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INSTANCE_NOT_FOUND", "domain": "firebaseinstallations.googleapis.com", "metadata": {"service": "firebaseinstallations.googleapis.com", "method": "google.firebase.installations.v1.FirebaseInstallationsService.DeleteInstallation"}}]}}"#,
        ] {
            #expect(ResultClassifier.deleteInstance(id: "fid", status: 404, body: Data(body.utf8), retryAfter: nil).item?.code == .alreadyAbsent, "\(body)")
        }
    }

    /// The subscription the tests' subscribe calls name (after `projects/{p}/`).
    static let subscription = "registrations/t/topicSubscriptions/news"

    @Test(
        "§2.6 FCM v1 subscribe: a 2xx that is an error body, not a 200, or not the subscription it asked for (another's, none, a status page) is no subscription",
        arguments: [
            (200, #"{"error": {"code": 403, "status": "PERMISSION_DENIED"}}"#), (200, #"{"error": "login required"}"#), (204, ""),
            (202, #"{"status": "login required"}"#), (200, #"{"status": "login required"}"#),
            (200, #"{"success": false, "message": "upstream timed out"}"#), (200, #"{"fault": {"faultstring": "x"}}"#), (200, #"{"errors": []}"#),
            (200, #"{"name": "projects/OTHER/registrations/x/topicSubscriptions/y"}"#),
            (200, #"{"name": "projects/p/registrations/t/topicSubscriptions/news2"}"#),
            (200, #"{"name": "projects/p/registrations/t/topicSubscriptions/news/x"}"#), (200, #"{"name": "registrations/t/topicSubscriptions/news"}"#),
            (200, #"{"name": 7}"#), (200, ""), (200, "{}"),
        ])
    func fcmSuccessIsTheResource(status: Int, body: String) {
        #expect(!ResultClassifier.isSubscriptionAnswer(status: status, body: Data(body.utf8), naming: Self.subscription), "HTTP \(status) \(body)")
    }

    @Test(
        "§2.6 FCM v1 unsubscribe: only a 200 with nothing or {} (google.protobuf.Empty) is the API's success",
        arguments: [
            (200, #"{"success": false}"#), (200, #"{"name": "projects/p/registrations/t/topicSubscriptions/news"}"#), (204, ""), (200, "[]"),
            (200, "<html>OK</html>"),
        ])
    func fcmUnsubscribeSuccessIsEmpty(status: Int, body: String) {
        #expect(!ResultClassifier.isSubscriptionAnswer(status: status, body: Data(body.utf8), naming: nil), "HTTP \(status) \(body)")
    }

    @Test("§2.6 FCM v1: a 200 with the subscription asked for (any project form, more members beside it) is subscribe's success; {} or nothing unsubscribe's")
    func fcmSuccessKept() {
        for body in [
            #"{"name": "projects/p/registrations/t/topicSubscriptions/news"}"#,
            #"{"name": "projects/123456789012/registrations/t/topicSubscriptions/news", "createTime": "2026-11-27T00:00:00Z"}"#,
        ] {
            #expect(ResultClassifier.isSubscriptionAnswer(status: 200, body: Data(body.utf8), naming: Self.subscription), "\(body)")
        }
        // However Google writes a token's `:` or a topic's `%` (as it is, or escaped), it is the
        // same subscription; the subscription asked for is raw (a topic may hold a bare `%`).
        for (asked, names) in [
            (
                "registrations/a:b/topicSubscriptions/x%20y",
                ["a:b/topicSubscriptions/x%20y", "a%3Ab/topicSubscriptions/x%2520y", "a%3ab/topicSubscriptions/x%2520y"]
            ),
            ("registrations/t/topicSubscriptions/100%", ["t/topicSubscriptions/100%", "t/topicSubscriptions/100%25"]),
            ("registrations/t/topicSubscriptions/a%zz", ["t/topicSubscriptions/a%zz", "t/topicSubscriptions/a%25zz"]),
        ] {
            for name in names {
                let body = Data(#"{"name": "projects/p/registrations/\#(name)"}"#.utf8)
                #expect(ResultClassifier.isSubscriptionAnswer(status: 200, body: body, naming: asked), "\(asked) answered \(name)")
            }
        }
        for (asked, name) in [
            ("registrations/t/topicSubscriptions/x%41", "t/topicSubscriptions/xA"), ("registrations/a:b/topicSubscriptions/n", "a%3Ac/topicSubscriptions/n"),
        ] {
            let body = Data(#"{"name": "projects/p/registrations/\#(name)"}"#.utf8)
            #expect(!ResultClassifier.isSubscriptionAnswer(status: 200, body: body, naming: asked), "\(asked) answered \(name)")
        }
    }

    @Test(
        "§2.6 on subscribe, ALREADY_EXISTS is success only as the API's conflict: not on a 401, 429 or 5xx, and a 409 naming another code is that code",
        arguments: [
            (503, #"{"error": "ALREADY_EXISTS"}"#), (401, #"{"error": {"code": 401, "status": "ALREADY_EXISTS"}}"#),
            (429, #"{"error": {"status": "ALREADY_EXISTS"}}"#), (409, #"{"error": {"code": 409, "status": "ABORTED"}}"#),
            (302, #"{"error": {"status": "ALREADY_EXISTS"}}"#),
            // The answer audit's: a conflict about the project or the caller.
            (409, #"{"error": {"code": 409, "status": "ALREADY_EXISTS", "message": "Project p-typo already exists"}}"#),
            (
                409,
                #"{"error": {"code": 409, "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "PROJECT_NOT_FOUND", "domain": "googleapis.com"}]}}"#
            ),
        ])
    func fcmAlreadyExistsOnlyAsConflict(status: Int, body: String) {
        let verdict = ResultClassifier.fcmV1(.fcmSubscribe, status: status, body: Data(body.utf8), retryAfter: nil)
        #expect(verdict != .item(.ok), "HTTP \(status) \(body)")
        // A conflict about the project or the caller is no token's answer at all.
        if status == 409, FCMErrorBody(apiAnswer: Data(body.utf8))?.isAboutTheProjectNotTheToken == true {
            #expect(verdict.call != nil, "HTTP \(status) \(body) gave \(String(describing: verdict.item))")
        }
    }

    @Test(
        "§2.6 an FCM v1 404 is the token's NOT_FOUND (which consumers purge) only when it is not about the project or the caller: one that is fails the call",
        arguments: [
            #"{"error": {"code": 404, "message": "Project 'other-project' not found.", "status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", "domain": "googleapis.com", "metadata": {"consumer": "projects/123"}}]}}"#,
            #"{"error": {"code": 404, "message": "Consumer 'projects/123' has been suspended.", "status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "PROJECT_NOT_FOUND", "domain": "fcm.googleapis.com"}]}}"#,
            #"{"error": {"code": 404, "message": "Project 'p' not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError"}]}}"#,
        ])
    func fcmNotFoundAboutSomethingElse(body: String) {
        for api in [BackendAPI.fcmSubscribe, .fcmUnsubscribe] {
            let verdict = ResultClassifier.fcmV1(api, status: 404, body: Data(body.utf8), retryAfter: nil)
            guard case .call(.unexpectedAnswer) = verdict else {
                Issue.record("\(api): \(body) read as \(verdict)")
                continue
            }
        }
    }

    @Test(
        "§2.6 an FCM v1 404 in the API's words is the token's NOT_FOUND: FCM's own detail, its text for an unregistered app instance, the call's own resource or token quoted",
        arguments: [
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}"#,
            #"{"error": "NOT_FOUND"}"#,
            #"{"error": {"code": 404, "message": "App instance was unregistered from FCM. This usually means that the token used is no longer valid.", "status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Topic subscription projects/my-project/registrations/cJ3x-9ab:APA91bH/topicSubscriptions/news not found", "status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Topic subscription 'projects/my-project/registrations/project-cJ3x-9ab:APA91bH/topicSubscriptions/project-news' not found", "status": "NOT_FOUND"}}"#,
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}, {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UNREGISTERED", "domain": "fcm.googleapis.com", "metadata": {"resource": "projects/p/registrations/tok/topicSubscriptions/consumer_alerts"}}]}}"#,
            #"{"error": {"code": 404, "message": "Project mismatch for this app instance", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}"#,
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UNREGISTERED", "domain": "fcm.googleapis.com", "metadata": {"registration": "cJ3x-9ab:APA91bH1234567"}}]}}"#,
        ])
    func fcmNotFoundOfTheToken(body: String) {
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 404, body: Data(body.utf8), retryAfter: nil).item?.code == .notFound, "\(body)")
    }

    @Test("§2.6 on subscribe, a 409 whose status is ALREADY_EXISTS is success, whatever code an FcmError detail names")
    func alreadyExistsByStatus() {
        let body =
            #"{"error": {"code": 409, "status": "ALREADY_EXISTS", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}}"#
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 409, body: Data(body.utf8), retryAfter: nil) == .item(.ok))
    }

    @Test(
        "§4 a device-group 400 is NOT_FOUND only when it says the group's key is not found; 'successfully' is not GROUP_FULL",
        arguments: [
            (#"{"error": "notification_key not found"}"#, ResultCode.notFound), (#"{"error": "registration token of another sender"}"#, .invalidArgument),
            (#"{"error": "notification_key_name not found"}"#, .notFound),
            (#"{"error": "removed successfully, but x"}"#, .invalidArgument), (#"{"error": "the group is full"}"#, .groupFull),
        ])
    func deviceGroupWords(body: String, expected: ResultCode) {
        #expect(ResultClassifier.deviceGroup(status: 400, body: Data(body.utf8), retryAfter: nil).item?.code == expected, "\(body)")
    }

    @Test(
        "§4 a device-group 400 about the caller (its project_id, its sender) fails the call, an outage's failure: a wrong sender-id must not end every member final",
        arguments: [#"{"error": "project_id not found"}"#, #"{"error": {"message": "Sender not found"}}"#, #"{"error": "invalid project id"}"#])
    func deviceGroupAboutTheCaller(body: String) {
        guard case .call(let error) = ResultClassifier.deviceGroup(status: 400, body: Data(body.utf8), retryAfter: nil) else {
            Issue.record("an item's result: \(body)")
            return
        }
        #expect(error.isOutage && !error.mayHaveBeenCarriedOut, "\(error)")
    }

    @Test("§2.3 a batch answer that holds an error beside its results is no answer of successes")
    func batchResultsBesideAnError() {
        let body = Data(#"{"results": [{}, {}], "error": {"code": 503, "status": "UNAVAILABLE"}}"#.utf8)
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse.resultRuns(jsonBody: body) }
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse.resultRuns(jsonBody: Data(#"{"error": "x", "results": []}"#.utf8)) }
        #expect((try? TopicBatchResponse.resultRuns(jsonBody: Data(#"{"results": [{}, {"error": "NOT_FOUND"}], "other": 1}"#.utf8)))?.count == 2)
    }

    @Test(
        "§3 deletion: an error that names the id but does not say it is gone, or a NOT_FOUND of another thing (a project), is no erasure receipt",
        arguments: [
            (409, #"{"error": "Instance ID \"fid\": aborted, concurrent deletion in progress"}"#),
            (404, #"{"error": "Instance ID \"fid\": internal error, try again"}"#),
            (404, #"{"error": {"code": 404, "message": "Project p-typo not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 404, "message": "Requested entity was not found: projects/p-typo", "status": "NOT_FOUND"}}"#),
            // The review's: a conflict that says "already" of something else, another thing not
            // found beside the id, the id only inside a quoted path, a thing no list names.
            (409, #"{"error": "Instance ID \"fid\": deletion already in progress"}"#),
            (404, #"{"error": "Instance ID \"fid\": project p-typo not found"}"#),
            (404, #"{"error": {"code": 404, "message": "Project not found: DELETE /v1/project/p-typo/instanceId/fid", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 404, "message": "App p-typo not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 404, "message": "x", "status": "NOT_FOUND"}}"#),
            (409, #"{"error": {"code": 409, "message": "Project p-typo already exists", "status": "ALREADY_EXISTS"}}"#),
            // The second review's: the request's path echoed, another word glued to the id by a
            // blank or a comma, a longer id, a short id inside a word.
            (404, #"{"error": {"code": 404, "message": "Not found: DELETE /v1/project/p-typo/instanceId/fid", "status": "NOT_FOUND"}}"#),
            (
                404,
                #"{"error": {"code": 404, "message": "The requested URL /v1/project/p/instanceId/fid was not found on this server.", "status": "NOT_FOUND"}}"#
            ),
            (404, #"{"error": "Instance ID \"fid\":\r\nProject p-typo not found"}"#),
            (404, #"{"error": "Instance ID \"fid\",project p-typo not found"}"#),
            (404, #"{"error": "Instance ID \"fid\":\u00A0project p-typo not found"}"#),
            (404, #"{"error": {"code": 404, "message": "Instance fid-abcdef not found", "status": "NOT_FOUND"}}"#),
            // The answer audit's: a conflict that names neither the id nor the thing asked for
            // (another id of 11 letters), and members of Google's error of another JSON type,
            // whose words would go unread.
            (409, #"{"error": {"code": 409, "status": "ALREADY_EXISTS", "message": "abcDEFghiJK already deleted"}}"#),
            (409, #"{"error": {"code": 409, "message": "x", "status": "ALREADY_EXISTS"}}"#),
            // Another legacy Instance ID (11 characters, letters only) beside the thing's word.
            (404, #"{"error": {"code": 404, "message": "Instance ID abcDEFghiJK not found", "status": "NOT_FOUND"}}"#),
            (409, #"{"error": {"code": 409, "message": "Instance abcDEFghiJK already deleted", "status": "ALREADY_EXISTS"}}"#),
            (404, #"{"error": "Instance ID \"fid\" not found; instance Abc_DefGhiJ is"}"#),
            (404, #"{"error": {"code": 404, "status": "NOT_FOUND", "message": ["Project p-typo not found"]}}"#),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "PROJECT_NOT_FOUND"}}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": ["PROJECT_NOT_FOUND"]}]}}"#
            ),
            (
                404,
                #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INSTANCE_NOT_FOUND", "metadata": {"consumer": ["projects/9"]}}]}}"#
            ),
            (404, #"{"error": {"code": "404", "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 404.5, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 404, "status": "NOT_FOUND", "message": {"text": "Project p-typo not found"}}}"#),
            (404, #"{"error": {"code": 404, "status": "NOT_FOUND", "message": null, "details": [{"@type": "type.googleapis.com/google.rpc.RequestInfo"}]}}"#),
        ])
    func deletionNotSaidGone(status: Int, body: String) {
        let verdict = ResultClassifier.deleteInstance(id: "fid", status: status, body: Data(body.utf8), retryAfter: nil)
        #expect(verdict.call != nil, "HTTP \(status) \(body) gave \(String(describing: verdict.item))")
    }

    @Test(
        "§2.6 FCM v1: a routing error, a code that disagrees with the status, a 403 or 404 in words the API does not use, or a status the API does not answer per token fails the call",
        arguments: [
            (404, #"{"error": {"code": 404, "message": "Method not found.", "status": "NOT_FOUND"}}"#),
            (404, #"{"error": {"code": 503, "status": "NOT_FOUND"}}"#),
            (403, #"{"error": "Forbidden"}"#),
            (403, #"{"error": {"code": 403, "message": "Forbidden"}}"#),
            (404, #"{"error": "Not Found"}"#),
            (404, #"{"timestamp": "2026-11-26T20:00:00Z", "status": 404, "error": "Not Found", "path": "/v1/projects/p/registrations/t/topicSubscriptions"}"#),
            (400, #"{"error": "Bad Request"}"#),
            (302, #"{"error": {"status": "NOT_FOUND"}}"#),
            (405, #"{"error": {"code": 405, "status": "INVALID_ARGUMENT"}}"#),
            (410, #"{"error": "NOT_FOUND"}"#),
            // The answer audit's: a 400 about the project is no token's INVALID_ARGUMENT (read as
            // the token's, every token of a backlog ends final, and consumers purge them).
            (400, #"{"error": {"code": 400, "message": "Invalid project ID: p-typo", "status": "INVALID_ARGUMENT"}}"#),
            (
                400,
                #"{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "CONSUMER_INVALID", "domain": "googleapis.com"}]}}"#
            ),
        ])
    func fcmNotAboutTheToken(status: Int, body: String) {
        for api in [BackendAPI.fcmSubscribe, .fcmUnsubscribe] {
            let verdict = ResultClassifier.fcmV1(api, status: status, body: Data(body.utf8), retryAfter: nil)
            #expect(verdict.call != nil, "\(api) HTTP \(status) \(body) gave \(String(describing: verdict.item))")
        }
    }

    @Test("§2.5 info and relation: a routing error or a NOT_FOUND whose code disagrees is no token's NOT_FOUND")
    func instanceIDNotFoundIsTheAPIs() {
        for body in [#"{"error": {"code": 404, "message": "Method not found.", "status": "NOT_FOUND"}}"#, #"{"error": {"code": 500, "status": "NOT_FOUND"}}"#] {
            #expect(ResultClassifier.instanceID(.instanceInfo, item: "t", status: 404, body: Data(body.utf8), retryAfter: nil).call != nil, "\(body)")
        }
        #expect(
            ResultClassifier.instanceID(
                .instanceInfo, item: "t", status: 404, body: Data(#"{"error": "No information found about this instance id."}"#.utf8), retryAfter: nil
            )
            .item?.code == .notFound)
    }

    @Test("§4 and §2.4 a 200 that holds an error beside a group's key, its members or import results is no success")
    func successBesideAnError() {
        let group = Data(#"{"notification_key": "APA91bK", "error": "registration_ids not found"}"#.utf8)
        #expect(throws: InstanceAPIError.self) { try InstanceAPIClient.groupAnswer(InstanceAPIClient.Answer(status: 200, body: group, retryAfter: nil)) }
        let export = Data(#"{"notification_key": "APA91bK", "registration_ids": ["r1"], "error": {"code": 503, "status": "UNAVAILABLE"}}"#.utf8)
        #expect(throws: InstanceAPIError.self) { try InstanceAPIClient.exportAnswer(InstanceAPIClient.Answer(status: 200, body: export, retryAfter: nil)) }
        let imports = #"{"results": [{"apns_token": "ab", "status": "OK", "registration_token": "r1"}], "error": {"code": 503, "status": "UNAVAILABLE"}}"#
        #expect(throws: JSONValue.ParseError.self) { try ImportResponse(jsonBody: Array(imports.utf8)) }
        // The answers themselves still read.
        let key = Data(#"{"notification_key": "APA91bK"}"#.utf8)
        #expect((try? InstanceAPIClient.groupAnswer(InstanceAPIClient.Answer(status: 200, body: key, retryAfter: nil))) == .success("APA91bK"))
        #expect((try? ImportResponse(jsonBody: Array(#"{"results": [{"apns_token": "ab", "status": "OK"}]}"#.utf8)))?.results.count == 1)
    }

    @Test("§2.6 FCM v1: a string error that is a code's name, known or not, is the token's result")
    func fcmStringCodes() {
        #expect(
            ResultClassifier.fcmV1(.fcmSubscribe, status: 400, body: Data(#"{"error": "UNSPECIFIED_ERROR"}"#.utf8), retryAfter: nil).item?.code
                == .unknown("UNSPECIFIED_ERROR"))
        #expect(
            ResultClassifier.fcmV1(.fcmSubscribe, status: 404, body: Data(#"{"error": "A_NEW_CODE_2"}"#.utf8), retryAfter: nil).item?.code
                == .unknown("A_NEW_CODE_2"))
        #expect(ResultClassifier.fcmV1(.fcmSubscribe, status: 404, body: Data(#"{"error": "UNREGISTERED"}"#.utf8), retryAfter: nil).item?.code == .notFound)
    }

    @Test("§3 deletion: a short id inside another word is not named; Google's resource name ending in the id is")
    func deletionWordsAroundTheID() {
        let project = Data(#"{"error": {"code": 404, "message": "Project p-typo not found", "status": "NOT_FOUND"}}"#.utf8)
        #expect(ResultClassifier.deleteInstance(id: "e", status: 404, body: project, retryAfter: nil).call != nil)
        #expect(ResultClassifier.deleteInstance(id: "roject", status: 404, body: project, retryAfter: nil).call != nil)
        let resource = Data(
            #"{"error": {"code": 404, "message": "Requested entity was not found: projects/p-1/installations/fid", "status": "NOT_FOUND"}}"#.utf8)
        #expect(ResultClassifier.deleteInstance(id: "fid", status: 404, body: resource, retryAfter: nil).item?.code == .alreadyAbsent)
    }
}
