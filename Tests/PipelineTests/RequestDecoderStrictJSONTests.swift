import InstanceAPI
import Pipeline
import Testing

/// A request record is read as strict RFC 8259 JSON: what a lax reader would repair or pick
/// between (ill-formed UTF-8, a repeated field, a number outside the grammar) is rejected, the
/// reason naming the byte offset.
@Suite("Request records are strict JSON")
struct RequestDecoderStrictJSONTests {
    let decoder = RequestDecoder(maxRecordBytes: 4_096, maxItems: 1_000)

    /// The rejection of `record`; nil (and an issue) when it is accepted.
    func rejection(_ record: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> RequestRejection? {
        switch decoder.decode(record) {
        case .success(let request):
            Issue.record("accepted as \(request)", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            return rejection
        }
    }

    @Test("the ids a\\xFFb and a\\xFEb are rejected at the bad byte, not both read as a\\u{FFFD}b")
    func illFormedIDs() {
        for byte: UInt8 in [0xFF, 0xFE] {
            let record = Array(#"{"id":"a"#.utf8) + [byte] + Array(#"b","op":"installations.delete","installations":["f"]}"#.utf8)
            guard let rejection = rejection(record) else { continue }
            #expect(rejection.field == nil && rejection.reason.contains("malformed JSON") && rejection.reason.contains("byte 8"), "\(rejection)")
            #expect(rejection.reason.contains("UTF-8"), "\(rejection)")
        }
    }

    @Test("a record that names its op twice is rejected, naming the field, instead of running the last one")
    func repeatedOp() {
        let head = #"{"id":"r","op":"installations.delete","installations":["f"],"#
        guard let rejection = rejection(Array((head + #""op":"instances.info","tokens":["f"]}"#).utf8)) else { return }
        #expect(rejection.reason.contains("byte \(head.utf8.count)") && rejection.reason.contains(#""op""#), "\(rejection)")
    }

    @Test("a count outside RFC 8259's number grammar is rejected", arguments: ["+1", "01", "1.", ".5", "1e", "-"])
    func numbers(text: String) {
        let record = #"{"id":"r","op":"installations.delete","installations":["f"],"priorAttempts":\#(text)}"#
        guard let rejection = rejection(Array(record.utf8)) else { return }
        #expect(rejection.reason.contains("malformed JSON"), "\(rejection)")
    }
}
