import Foundation
import Testing
import WireJSON

@Suite("JSONWriter writes what JSONEncoder writes")
struct JSONWriterTests {
    private func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test(
        "strings are escaped byte for byte as JSONEncoder escapes them",
        arguments: [
            "", "plain-token_0123:APA91b", "/topics/movies", "quote \" backslash \\ slash /", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F}",
            "é ü 漢字 😇", String(repeating: "x", count: 200) + "\"",
        ])
    func strings(text: String) throws {
        #expect(written { $0.strings([text, text]) } == (try encoded([text, text])))
        #expect(JSONValue.isPlain(text) == !text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F })
    }

    @Test(
        "escapedByteCount(of:) is the bytes the writer writes for a string",
        arguments: [
            "", "plain-token_0123:APA91b", "/topics/movies", "quote \" backslash \\ slash /", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F}",
            "é ü 漢字 😇", "ü\"\n😇/\u{1B}", String(repeating: "x", count: 200) + "\"",
        ])
    func escapedByteCount(text: String) {
        // The writer's bytes for the string, its two quotes aside.
        #expect(JSONWriter.escapedByteCount(of: text) == written { $0.string(text) }.utf8.count - 2)
    }

    @Test("every ASCII byte: plain exactly when the writer writes it as it is")
    func plainBytes() {
        for byte in UInt8(0)..<0x80 {
            let text = String(decoding: [byte], as: UTF8.self)
            let count = JSONWriter.escapedByteCount(of: text)
            #expect(JSONValue.isPlain(text) == (count == 1), "byte \(byte)")
            #expect(count == written { $0.string(text) }.utf8.count - 2, "byte \(byte)")
        }
    }

    @Test("integers, booleans, nesting and sorted dictionary keys")
    func values() throws {
        for value in [0, 7, -7, 10, 999, 1_000_000, Int.max, Int.min + 1] {
            #expect(written { $0.int(value) } == (try encoded(value)))
        }
        let counts = ["OK": 998, "NOT_FOUND": 2, "UNKNOWN(x)": 1, "a10": 3, "a9": 4, "B": 5, "_": 6]
        #expect(written { $0.members(counts) { $0.int($1) } } == (try encoded(counts)))
        let lists = ["b": ["1", "2"], "a": [], "C": ["x/y"]]
        #expect(written { $0.members(lists) { $0.strings($1) } } == (try encoded(lists)))
        let nested = written { writer in
            writer.beginObject()
            writer.member("a", true)
            writer.key("b")
            writer.beginArray()
            writer.beginObject()
            writer.endObject()
            writer.bool(false)
            writer.endArray()
            writer.member("c", "d")
            writer.endObject()
        }
        #expect(nested == #"{"a":true,"b":[{},false],"c":"d"}"#)
    }

    /// Keys as a Codable type declares them, one renamed on the wire.
    private enum Keys: String, CodingKey {
        case flag
        case count = "n"
        case name
    }

    @Test("members named by CodingKey cases: their wire names, and the same JSONValue member read back")
    func codingKeys() throws {
        let text = written { writer in
            writer.beginObject()
            writer.member(Keys.flag, true)
            writer.member(Keys.count, 3)
            writer.key(Keys.name)
            writer.string("x")
            writer.member(Keys.name, "y")
            writer.endObject()
        }
        #expect(text == #"{"flag":true,"n":3,"name":"x","name":"y"}"#)
        let value = try JSONValue.parse(bytes: Array(#"{"flag":true,"n":3}"#.utf8))
        #expect(value[Keys.count] == .number(3) && value[Keys.flag] == .bool(true) && value[Keys.name] == nil)
    }
}
