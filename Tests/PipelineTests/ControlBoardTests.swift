import Foundation
import Kafka
import Pipeline
import Testing

@Suite("Live control: the board of documents read from the control topic")
struct ControlBoardTests {
    private func record(_ offset: Int64, _ scope: String?, _ value: [UInt8]?, headers: [KafkaHeader] = []) -> KafkaRecord {
        KafkaRecord(
            topic: ControlTopic.defaultName, partition: 0, offset: offset, key: scope.map { Array($0.utf8) }, value: value, headers: headers, timestamp: nil)
    }

    @Test("the latest valid document of a scope is in force; a refused one keeps the last good; a tombstone returns to the file")
    func lastGoodWins() throws {
        var board = ControlBoard()
        let file = ControlSettingsTests.file
        guard case .activated = board.receive(record(0, "topics", ControlSettingsTests.document(1, #"{"rate-limit": 5}"#))) else {
            Issue.record("a valid document is activated")
            return
        }
        #expect(board.settings(for: file).settings[.rateLimit]?.value == .number(5))

        let refused = board.receive(record(1, "topics", ControlSettingsTests.document(2, #"{"rate-limit": "fast"}"#)))
        #expect(
            refused == .refused(scope: "topics", .badValue(key: "rate-limit", value: #""fast""#, expected: "a number of calls per second in 0.01...1000000")))
        #expect("\(refused)".contains(#"rate-limit: "fast" is not"#))
        #expect(board.settings(for: file).settings[.rateLimit]?.value == .number(5), "the last good version stays")
        #expect(board.nextVersion(of: "topics") == 2, "a refused record takes no version")

        // A document replaces the scope's overrides whole.
        _ = board.receive(record(2, "topics", ControlSettingsTests.document(3, #"{"paused": true}"#)))
        #expect(board.settings(for: file).settings[.rateLimit] == .init(value: .number(100), source: .file))
        #expect(board.settings(for: file).paused)

        let reset = board.receive(
            record(
                3, "topics", nil,
                headers: [KafkaHeader(key: ControlTopic.updatedByHeader, string: "bob"), KafkaHeader(key: ControlTopic.reasonHeader, string: "over")]))
        #expect(reset == .reset(scope: "topics", updatedBy: "bob", reason: "over"))
        #expect(board.settings(for: file) == ControlledSettings(file: file, all: nil, own: nil), "back to the file")
        #expect(board.nextVersion(of: "topics") == 4, "versions keep rising across a reset")
    }

    @Test("a change concerns its own pipeline and, for *, every pipeline; a record without a key is refused")
    func scopes() {
        var board = ControlBoard()
        let all = board.receive(record(0, "*", ControlSettingsTests.document(1, #"{"paused": true}"#)))
        #expect(all.affects(pipeline: "topics") && all.affects(pipeline: "deletions"))
        let own = board.receive(record(1, "deletions", ControlSettingsTests.document(1, #"{"paused": false}"#)))
        #expect(own.affects(pipeline: "deletions") && !own.affects(pipeline: "topics"))
        #expect(board.settings(for: ControlSettingsTests.file).paused, "* pauses topics")
        if case .refused(let scope, _) = board.receive(record(2, nil, ControlSettingsTests.document(1, "{}"))) {
            #expect(scope == "?")
        } else {
            Issue.record("a record without a key names no scope")
        }
    }
}
