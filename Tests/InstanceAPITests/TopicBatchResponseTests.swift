import Foundation
import InstanceAPI
import Testing

@Suite("Reading batchAdd/batchRemove answers")
struct TopicBatchResponseTests {
    @Test(
        "every layout of an answer reads as Foundation's decoder reads it",
        arguments: [
            #"{"results":[{},{"error":"NOT_FOUND"},{}]}"#,
            "{\n  \"results\": [\n    {},\n    {\n      \"error\": \"INVALID_ARGUMENT\"\n    }\n  ]\n}\n",
            #"{"results":[]}"#,
            #" { "results" : [ ] } "#,
            #"{"results":[{"error":"we\"ird \u00e9"}]}"#,
            #"{"results":[{"error":"INTERNAL","detail":"x"},{}]}"#,
            #"{"kind":"batch","results":[{}]}"#,
            #"{"results":[{},{"error":"TOO_MANY_TOPICS"}],"next":null}"#,
        ])
    func layouts(body: String) throws {
        let expected = try JSONDecoder().decode(TopicBatchResponse.self, from: Data(body.utf8))
        #expect(try TopicBatchResponse(jsonBody: Data(body.utf8)) == expected)
    }

    @Test("a thousand entries, mostly successes, keep their order")
    func thousand() throws {
        let entries = (0..<1_000).map { $0 % 7 == 0 ? TopicBatchResponse.Entry(error: "NOT_FOUND") : TopicBatchResponse.Entry() }
        let response = TopicBatchResponse(results: entries)
        #expect(try TopicBatchResponse(jsonBody: response.jsonBody()) == response)
        #expect(try TopicBatchResponse(jsonBody: JSONEncoder().encode(response)) == response)
    }

    @Test(
        "malformed answers are refused",
        arguments: [
            "", #"{"results":[{},]}"#, #"{"results":[{} {}]}"#, #"{"results":[{}]"#, #"{"results":[{}]} x"#,
            #"{"results":{}}"#, #"{"results":[1]}"#, #"{"results":[{"error":"NOT_FOUND"]}"#, #"{"other":[]}"#,
        ])
    func malformed(body: String) {
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse(jsonBody: Data(body.utf8)) }
    }
}
