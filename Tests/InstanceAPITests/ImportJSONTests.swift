import Foundation
import Testing
import WireJSON

@testable import InstanceAPI

@Suite("batchImport bodies: written and read as Codable writes and reads them")
struct ImportJSONTests {
    private static let texts = ["a1b2c3", "", "with \"quote\"", "back\\slash", "é-ünï", "tab\there", "😀", String(repeating: "f", count: 64)]

    @Test("a request written directly decodes with JSONDecoder to the same request")
    func requests() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let request = ImportRequest(
                application: Self.texts.randomElement(using: &random)!, sandbox: Bool.random(using: &random),
                apnsTokens: (0..<Int.random(in: 0...100, using: &random)).map { _ in Self.texts.randomElement(using: &random)! })
            #expect(try JSONDecoder().decode(ImportRequest.self, from: Data(request.jsonBytes())) == request)
        }
    }

    @Test("an answer reads as JSONDecoder reads it: absent or null registration tokens, escapes, order kept")
    func answers() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let entries = (0..<Int.random(in: 0...100, using: &random)).map { _ in
                ImportResponse.Entry(
                    apnsToken: Self.texts.randomElement(using: &random)!,
                    status: ["OK", "Invalid APNs token", "Internal Server Error"].randomElement(using: &random)!,
                    registrationToken: Bool.random(using: &random) ? Self.texts.randomElement(using: &random)! : nil)
            }
            let body = try JSONEncoder().encode(ImportResponse(results: entries))
            #expect(try ImportResponse(jsonBody: Array(body)) == JSONDecoder().decode(ImportResponse.self, from: body))
            // Written directly, it decodes to the same answer.
            #expect(try JSONDecoder().decode(ImportResponse.self, from: Data(ImportResponse(results: entries).jsonBytes())) == ImportResponse(results: entries))
        }
        let withNull = Array(#"{"results": [{"apns_token": "ab", "status": "OK", "registration_token": null}]}"#.utf8)
        #expect(try ImportResponse(jsonBody: withNull).results == [ImportResponse.Entry(apnsToken: "ab", status: "OK")])
    }

    @Test(
        "answers JSONDecoder refuses are refused",
        arguments: [
            #"{}"#, #"{"results": {}}"#, #"{"results": [1]}"#, #"{"results": [{"status": "OK"}]}"#, #"{"results": [{"apns_token": "ab", "status": 3}]}"#,
            #"{"results": [{"apns_token": "ab", "status": "OK", "registration_token": 7}]}"#, "not json",
        ])
    func refused(body: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ImportResponse.self, from: Data(body.utf8)) }
        #expect(throws: JSONValue.ParseError.self) { try ImportResponse(jsonBody: Array(body.utf8)) }
    }
}
