import Foundation
import InstanceAPI
import Testing

/// An `error` (or an import's failed `status`) is an error: one that names a success code is an
/// error whose name is unknown, kept verbatim, never a success.
@Suite("Error entries that name a success code are not successes")
struct ResultClassifierSuccessNameTests {
    @Test(
        "§2.3 a batch entry's error naming OK or ALREADY_ABSENT (or CANCELLED, an operator's word) is UNKNOWN, its text kept",
        arguments: ["OK", "ALREADY_ABSENT", "CANCELLED"])
    func batchItem(name: String) {
        let result = ResultClassifier.batchItem(error: name)
        #expect(!result.code.isSuccess)
        #expect(result.code == .unknown(name) && result.message == name)
    }

    @Test("§2.4 an import status ALREADY_ABSENT is UNKNOWN; OK stays the import's success")
    func importStatus() {
        #expect(ResultClassifier.importStatus("ALREADY_ABSENT").code == .unknown("ALREADY_ABSENT"))
        #expect(ResultClassifier.importStatus("OK") == .ok)
    }

    @Test("a status or code spelled OK with a KELVIN SIGN (U+212A), which Swift's == calls OK, is not OK")
    func kelvinSign() {
        let kelvin = "O\u{212A}"
        #expect(kelvin == "OK", "the premise: Swift compares by canonical equivalence")
        #expect(ResultClassifier.importStatus(kelvin).code == .unknown(kelvin))
        #expect(ResultCode(rawValue: kelvin) == .unknown(kelvin) && ResultCode(rawValue: "OK") == .ok)
    }

    @Test(
        "§2.6 an FCM v1 error naming a success code is the token's UNKNOWN, never its success",
        arguments: [
            (404, #"{"error": "ALREADY_ABSENT"}"#, "ALREADY_ABSENT"), (400, #"{"error": "OK"}"#, "OK"),
            (404, #"{"error": {"code": 404, "status": "OK"}}"#, "OK"),
            (
                400,
                #"{"error": {"code": 400, "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "ALREADY_ABSENT"}]}}"#,
                "ALREADY_ABSENT"
            ),
        ])
    func fcmV1(status: Int, body: String, name: String) {
        for api in [BackendAPI.fcmUnsubscribe, .fcmSubscribe] {
            let verdict = ResultClassifier.fcmV1(api, status: status, body: Data(body.utf8), retryAfter: nil)
            #expect(verdict.item?.code == .unknown(name), "\(api) \(status) \(body): \(verdict)")
        }
    }
}
