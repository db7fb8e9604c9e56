import Foundation
import InstanceAPI
import Testing
import WireJSON

@Suite("The fast JSON path of the batch bodies")
struct JSONValueTests {
    @Test("batch bodies written directly decode with JSONDecoder, and the reverse, escapes included")
    func agreesWithFoundation() throws {
        let tokens = ["plain", "quote\"d", "back\\slash", "tab\there", "naïve-ü", "line\nbreak", "\u{01}ctl", "emoji-🎉"]
        let request = TopicBatchRequest(topic: "movies", tokens: tokens)
        #expect(try JSONDecoder().decode(TopicBatchRequest.self, from: request.jsonBody()) == request)
        #expect(try TopicBatchRequest(jsonBody: JSONEncoder().encode(request)) == request)
        let response = TopicBatchResponse(results: [.init(), .init(error: "NOT_FOUND"), .init(error: "we\"ird")])
        #expect(try JSONDecoder().decode(TopicBatchResponse.self, from: response.jsonBody()) == response)
        #expect(try TopicBatchResponse(jsonBody: JSONEncoder().encode(response)) == response)
        #expect(
            try TopicBatchResponse(jsonBody: Data(#" { "results" : [ { } , { "error" : "INTERNAL" , "extra": [1, 2.5e3, null, true] } ] } "#.utf8))
                == TopicBatchResponse(results: [.init(), .init(error: "INTERNAL")]))
        #expect(try JSONValue.parse(Data(#"["\u00e9\ud83c\udf89"]"#.utf8)) == .array([.string("é🎉")]))
    }

    @Test(
        "malformed bodies are refused with a reason",
        arguments: [
            "", "{", #"{"to": "/topics/a"}"#, #"{"to": 1, "registration_tokens": []}"#, #"{"to": "x", "registration_tokens": [1]}"#,
            #"{"to": "x", "registration_tokens": ["a",]}"#, #"{"to": "x", "registration_tokens": ["a"]} trailing"#, #"{"to": "\x"}"#,
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ])
    func malformed(body: String) {
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchRequest(jsonBody: Data(body.utf8)) }
    }
}
