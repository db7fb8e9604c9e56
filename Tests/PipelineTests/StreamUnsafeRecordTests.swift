import Foundation
import InstanceAPI
import Kafka
import Testing
import WireJSON

@testable import Pipeline

/// Records the operator's tools and the control listener read, from topics anyone may produce
/// to, whose text is past Unicode's stream-safe limit (`StreamSafeText`): refused or read as
/// absent before anything compares or hashes that text (a megabyte of alternating combining
/// marks took Swift minutes per comparison).
@Suite("Tools and the control listener refuse text past the stream-safe limit at once", .timeLimit(.minutes(1)))
struct StreamUnsafeRecordTests {
    /// 800 kB of alternating combining marks, the worst case of Swift's normalization.
    let marks = "a" + String(repeating: "\u{301}\u{316}", count: 200_000)

    private func record(key: String?, value: [UInt8]?, headers: [KafkaHeader] = []) -> KafkaRecord {
        KafkaRecord(topic: "t", partition: 0, offset: 7, key: key.map { Array($0.utf8) }, value: value, headers: headers)
    }

    @Test("a control record keyed by such text is refused, tombstone or not")
    func controlKey() {
        var board = ControlBoard()
        for value in [nil, Array(#"{"version":1}"#.utf8)] as [[UInt8]?] {
            guard case .refused = board.receive(record(key: marks, value: value)) else {
                Issue.record("taken")
                continue
            }
        }
        #expect(board.documents.isEmpty)
    }

    @Test("an outcome holding such text (a key of its lists, escaped or not) is no outcome to the tools")
    func outcome() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let real = Outcome(
            requestID: "g-1", op: .groupsExport, target: [:], status: .succeeded, counts: ["OK": 1], failedItems: [], notificationKey: "k",
            groupMembers: ["family": ["t1"]], backendCalls: 1, receivedAt: now, completedAt: now)
        let text = String(decoding: real.wireBytes(limit: .max), as: UTF8.self)
        #expect(Outcome.read(Array(text.utf8), using: Outcome.decoder()) != nil)
        let escaped = "a" + String(repeating: #"\u0301\u0316"#, count: 200_000)
        // Spliced as bytes: a `String` comparison of the forged text is what takes minutes.
        let bytes = Array(text.utf8)
        let family = Array(#""family""#.utf8)
        guard let at = (0...(bytes.count - family.count)).first(where: { bytes[$0..<$0 + family.count].elementsEqual(family) }) else {
            return #expect(Bool(false), "no group in \(text)")
        }
        for name in [marks, escaped] {
            let forged = Array(bytes[..<at]) + Array("\"\(name)\"".utf8) + Array(bytes[(at + family.count)...])
            #expect(Outcome.read(forged, using: Outcome.decoder()) == nil)
        }
    }

    @Test("a dead letter's header holding such text is read as absent; its kind is matched by bytes")
    func deadLetterHeaders() {
        let letter = DeadLetter(
            record(
                key: nil, value: nil,
                headers: [KafkaHeader(key: DeadLetterHeader.requestID, string: marks), KafkaHeader(key: DeadLetterHeader.kind, string: "undecodable")]))
        #expect(letter.requestID == nil && letter.kind == .undecodable)
        let kind = DeadLetter(record(key: nil, value: nil, headers: [KafkaHeader(key: DeadLetterHeader.kind, string: "retry-exhausted" + marks)]))
        #expect(kind.kind == .undecodable)
        // The last header of a name is the one read, as absent when past the limit.
        let topics = DeadLetter(
            record(
                key: nil, value: nil,
                headers: [
                    KafkaHeader(key: DeadLetterHeader.originalTopic, string: "requests"), KafkaHeader(key: DeadLetterHeader.originalTopic, string: marks),
                ]))
        #expect(topics.originalTopic == nil)
    }

    @Test("a batch manifest keyed by such text is refused")
    func batchKey() {
        var contents = BatchTopic.Contents()
        contents.read(record(key: marks, value: nil))
        #expect(contents.refused.count == 1 && contents.manifests.isEmpty)
    }

    @Test("JSON may hold text past the limit only with a non-ASCII byte or a \\u escape")
    func mayExceed() {
        #expect(!StreamSafeText.mayExceedLimit(json: Array(#"{"a":"b\\u","c":"\/"}"#.utf8)))
        #expect(StreamSafeText.mayExceedLimit(json: Array(#"{"a":"\u0301"}"#.utf8)))
        #expect(StreamSafeText.mayExceedLimit(json: Array("{\"a\":\"é\"}".utf8)))
    }
    @Test("a backend's page of combining marks, quoted in a failed item's message and in an UNKNOWN code, leaves the outcome readable")
    func backendWordsInAnOutcome() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // 40 marks in a row: past the limit a reader refuses, within the 200 bytes a message quotes.
        let page = Data(("x" + String(repeating: "\u{301}", count: 40)).utf8)
        let error = ResultClassifier.callFailure(.deleteInstance, status: 503, body: page, retryAfter: nil)
        let code = ResultCode.unknown(verbatim: String(repeating: "\u{301}", count: 32))
        let outcome = Outcome(
            requestID: "d-2", op: .installationsDelete, target: ["subject": "s"], status: .failed, counts: ["UNAVAILABLE": 1, code.rawValue: 1],
            failedItems: [
                FailedItem(index: 0, item: "fid-b", code: .unavailable, attempts: 6, message: error.description),
                FailedItem(index: 1, item: "fid-c", code: code, attempts: 1, message: nil),
            ],
            backendCalls: 7, receivedAt: now, completedAt: now)
        let marks = error.description.unicodeScalars.filter { $0 == "\u{301}" }.count
        #expect(marks == StreamSafeText.maxNonStarters, "the page is still quoted, its run cut: \(error.description)")
        #expect(!StreamSafeText.exceedsLimit(error.description) && !StreamSafeText.exceedsLimit(code.rawValue))
        #expect(Outcome.read(outcome.wireBytes(limit: .max), using: Outcome.decoder()) != nil)
    }

    @Test("clipping keeps text within the limit as it is, and cuts each longer run to the limit")
    func clipped() {
        #expect(StreamSafeText.clipped("café") == "café")
        let within = "a" + String(repeating: "\u{316}", count: StreamSafeText.maxNonStarters)
        #expect(StreamSafeText.clipped(within) == within)
        let long = "a" + String(repeating: "\u{301}\u{316}", count: 40) + "b" + String(repeating: "\u{301}", count: 31) + "c"
        let clipped = StreamSafeText.clipped(long)
        #expect(!StreamSafeText.exceedsLimit(clipped))
        #expect(clipped.unicodeScalars.count == 1 + 30 + 1 + 30 + 1 && clipped.hasSuffix("c"))
    }
}
