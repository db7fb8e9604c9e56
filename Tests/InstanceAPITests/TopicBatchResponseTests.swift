import Foundation
import InstanceAPI
import Testing
import WireJSON

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
        let runs = try TopicBatchResponse.resultRuns(jsonBody: Data(body.utf8))
        #expect(Array(runs) == expected.results)
        #expect(runs.runs.count == Self.changes(expected.results), "runs are maximal")
    }

    @Test(
        "an entry whose error is not a string is not the API's answer: refused, never read as success",
        arguments: [
            #"{"results":[{"error":{"code":5}}]}"#, #"{"results":[{},{"error":7}]}"#, #"{"results":[{"error":null}]}"#,
        ])
    func nonStringErrorIsRefused(body: String) {
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse.resultRuns(jsonBody: Data(body.utf8)) }
    }

    @Test("runs of successes and errors come back as maximal runs, in order")
    func runs() throws {
        let pattern = [0, 1, 1, 0, 0, 0, 2, 2, 0, 1]
        let entries = (0..<1_000).map { index -> TopicBatchResponse.Entry in
            switch pattern[index % pattern.count] {
            case 1: TopicBatchResponse.Entry(error: "NOT_FOUND")
            case 2: TopicBatchResponse.Entry(error: "INVALID_ARGUMENT")
            default: TopicBatchResponse.Entry()
            }
        }
        let body = TopicBatchResponse(results: entries).jsonBody()
        let runs = try TopicBatchResponse.resultRuns(jsonBody: body)
        #expect(Array(runs) == entries)
        #expect(runs.runs.count == Self.changes(entries))
        let successes = try TopicBatchResponse.resultRuns(jsonBody: TopicBatchResponse(results: Array(repeating: .init(), count: 1_000)).jsonBody())
        #expect(successes.runs.count == 1 && successes.count == 1_000)
        #expect(try TopicBatchResponse.resultRuns(jsonBody: Data(#"{"results":[]}"#.utf8)).runs.isEmpty)
    }

    /// The number of maximal runs of equal adjacent entries.
    private static func changes(_ entries: [TopicBatchResponse.Entry]) -> Int {
        zip(entries, entries.dropFirst()).filter { $0 != $1 }.count + (entries.isEmpty ? 0 : 1)
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
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse.resultRuns(jsonBody: Data(body.utf8)) }
    }
}

extension TopicBatchResponseTests {
    @Test(
        "an entry that is not {} and has no error is not the API's answer: refused, never read as success",
        arguments: [#"{"results":[{"status":"FAILED"}]}"#, #"{"results":[{},{"code":"NOT_FOUND"}]}"#, #"{"results":[{"Error":"INTERNAL"}]}"#])
    func entryWithoutErrorIsRefused(body: String) {
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse.resultRuns(jsonBody: Data(body.utf8)) }
        #expect(throws: JSONValue.ParseError.self) { try TopicBatchResponse(jsonBody: Data(body.utf8)) }
    }
}
