import Foundation
import InstanceAPI
import Testing

/// §3: a 404 or 409 whose `{"error": "…"}` echoes the request's path (a gateway's or a web
/// framework's "Cannot DELETE /v1/project/p/instanceId/ID") names the id only inside the URL: it
/// is not the API saying the installation is gone, and must never become an erasure receipt.
@Suite("Deletion: an error that echoes the request's path is not the API's answer about the id")
struct DeletionEchoedPathTests {
    @Test(
        "a 404 or 409 echoing the path fails the call as an answer that is not the API's (as an HTML 404 does)",
        arguments: [
            (404, #"{"error":"Cannot DELETE /v1/project/p/instanceId/fid-abc"}"#),
            (409, #"{"error":"Cannot DELETE /v1/project/p/instanceId/fid-abc"}"#),
            (404, #"{"error":"Not Found: https://console.firebase.google.com/v1/project/p/instanceId/fid-abc"}"#),
            (404, #"{"error":"Instance ID fid-abc: failed to find (DELETE /v1/project/p/instanceId/fid-abc)"}"#),
        ])
    func echoedPath(status: Int, body: String) {
        guard case .call(let error) = ResultClassifier.deleteInstance(id: "fid-abc", status: status, body: Data(body.utf8), retryAfter: nil) else {
            Issue.record("HTTP \(status) \(body) must not settle the deletion")
            return
        }
        let html = ResultClassifier.deleteInstance(id: "fid-abc", status: 404, body: Data("<html>404</html>".utf8), retryAfter: nil).call
        #expect(error.resultCode == html?.resultCode && error.isOutage && error.isRetryable, "\(error)")
    }

    @Test("Google's own answers keep their meaning: the legacy string naming the id, the structured NOT_FOUND")
    func googlesOwn() {
        for (status, body) in [
            (404, #"{"error": "Instance ID fid-abc: failed to find"}"#), (409, #"{"error": "Instance ID \"fid-abc\": already deleted"}"#),
            (404, #"{"error": {"code": 404, "message": "Requested entity was not found: projects/p/installations/fid-abc", "status": "NOT_FOUND"}}"#),
        ] {
            #expect(
                ResultClassifier.deleteInstance(id: "fid-abc", status: status, body: Data(body.utf8), retryAfter: nil).item?.code == .alreadyAbsent, "\(body)")
        }
    }

    @Test("a 403 echoing the path is the caller's refusal (the whole call), not this id's PERMISSION_DENIED")
    func forbiddenEchoedPath() {
        let body = Data(#"{"error":"Forbidden: DELETE /v1/project/p/instanceId/fid-abc"}"#.utf8)
        #expect(ResultClassifier.deleteInstance(id: "fid-abc", status: 403, body: body, retryAfter: nil).call?.isSystemic == true)
        #expect(FCMErrorBody(apiAnswer: body)?.names("fid-abc") == false)
        #expect(FCMErrorBody(apiAnswer: Data(#"{"error":"Instance ID \"fid-abc\": project does not match"}"#.utf8))?.names("fid-abc") == true)
    }
}
