import Foundation
import InstanceAPI
import Testing

/// §2.4: each import result echoes its APNs token; a registration token must never be published
/// for another APNs token than the one it was issued for.
@Suite("Import answers: results matched to the request's APNs tokens")
struct ImportResultsTests {
    private func answer(_ json: String) throws -> ImportResponse { try ImportResponse(jsonBody: Array(json.utf8)) }

    @Test("results in another order than the request's tokens: the answer is malformed, no token gets another's registration")
    func swapped() throws {
        let response = try answer(
            #"{"results":[{"apns_token":"B","status":"OK","registration_token":"rB"},{"apns_token":"A","status":"OK","registration_token":"rA"}]}"#)
        let error = #expect(throws: InstanceAPIError.self) { try response.importResults(for: ["A", "B"]) }
        guard case .malformedResponse(_, _, let message)? = error else {
            Issue.record("expected a malformed answer, got \(String(describing: error))")
            return
        }
        #expect(message.contains("'B'") && message.contains("'A'") && message.contains("results[0]"), "\(message)")
    }

    @Test("results for the request's tokens, in order (hex in either case), map each to its own registration token")
    func inOrder() throws {
        let response = try answer(
            #"{"results":[{"apns_token":"aa01","status":"OK","registration_token":"rA"},{"apns_token":"BB02","status":"Internal Server Error"}]}"#)
        let results = try response.importResults(for: ["AA01", "bb02"])
        #expect(results.map(\.apnsToken) == ["AA01", "bb02"])
        #expect(results[0].result == .ok && results[0].registrationToken == "rA")
        #expect(results[1].result.code == .internal && results[1].registrationToken == nil)
    }

    @Test(
        "an OK entry without a registration token is the item's INTERNAL, not an import without a token",
        arguments: [
            #"{"results":[{"apns_token":"A","status":"OK"}]}"#, #"{"results":[{"apns_token":"A","status":"OK","registration_token":null}]}"#,
            #"{"results":[{"apns_token":"A","status":"OK","registration_token":""}]}"#,
        ])
    func okWithoutToken(json: String) throws {
        let results = try answer(json).importResults(for: ["A"])
        #expect(results.count == 1 && results[0].result.code == .internal && results[0].registrationToken == nil, "\(results)")
        #expect(results[0].result.message?.contains("registration_token") == true)
    }

    @Test("an OK entry whose registration token no token can be (too long, a quote) makes the answer malformed: outcomes are bounded by it")
    func tokenNoTokenCanBe() throws {
        for bad in [String(repeating: "r", count: APILimits.answeredTokenBytes + 1), #"r\"B"#] {
            let response = try answer(#"{"results":[{"apns_token":"A","status":"OK","registration_token":"\#(bad)"}]}"#)
            let error = #expect(throws: InstanceAPIError.self) { try response.importResults(for: ["A"]) }
            guard case .malformedResponse(.batchImport, 200, let message)? = error else {
                Issue.record("expected a malformed answer, got \(String(describing: error))")
                continue
            }
            #expect(message.contains("registration_token"), "\(message)")
        }
        // A failed entry's registration token is not kept: whatever it holds, the answer stands.
        let failed = try answer(#"{"results":[{"apns_token":"A","status":"Internal Server Error","registration_token":"r\"B"}]}"#)
        #expect(try failed.importResults(for: ["a"]).first?.result.code == .internal)
    }
}
