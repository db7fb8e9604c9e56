import Foundation
import Testing
import WireJSON

/// RFC 8259, strictly, for the records an adversary writes and the answers a backend gives: each
/// rule on its own, with the offset the refusal names.
@Suite("Strict RFC 8259 JSON")
struct JSONStrictnessTests {
    /// The refusal of `bytes` by `parse`, after checking that `parseMembers` refuses them the
    /// same way; nil (and an issue) when they are accepted.
    func refusal(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue.ParseError? {
        let members = Result { () throws(JSONValue.ParseError) in try JSONValue.parseMembers(bytes: bytes) }
        do {
            let value = try JSONValue.parse(bytes: bytes)
            Issue.record("accepted as \(String(describing: value).prefix(200))", sourceLocation: sourceLocation)
            return nil
        } catch {
            if case .failure(let other) = members {
                #expect(other.offset == error.offset && other.reason == error.reason, "parseMembers: \(other)", sourceLocation: sourceLocation)
            } else {
                Issue.record("parseMembers accepted what parse refused: \(error)", sourceLocation: sourceLocation)
            }
            #expect(error.description.utf8.count <= 200, "\(error.description.utf8.count) bytes", sourceLocation: sourceLocation)
            return error
        }
    }

    func refusal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue.ParseError? {
        refusal(Array(text.utf8), sourceLocation: sourceLocation)
    }

    @Test(
        "a number outside -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? is refused at the byte that breaks the grammar",
        arguments: [
            ("+1", 0), ("+01", 0), (".5", 0), ("1.", 2), ("01", 1), ("-01", 2), ("00", 1), ("1e", 2), ("-", 1), ("1E+", 3), ("1e-", 3), ("1.e5", 2),
            ("-.5", 1), ("-0.e1", 3), ("0x10", 1), ("Infinity", 0), ("-Infinity", 1), ("NaN", 0), ("--1", 1), ("1e5.", 3), ("[1.]", 3), ("[01]", 2),
            (#"{"n": .5}"#, 6), (#"{"n": +1}"#, 6), ("[1e+]", 4),
        ])
    func numbersOutsideTheGrammar(text: String, offset: Int) {
        guard let error = refusal(text) else { return }
        #expect(error.offset == offset, "\(error)")
    }

    @Test(
        "a number in the grammar reads as the nearest double, underflow as zero",
        arguments: [
            ("0", 0), ("10", 10), ("-12.5e1", -125), ("1E+2", 100), ("1e-2", 0.01), ("0.5", 0.5), ("123456789012345678", 123_456_789_012_345_680),
            ("9007199254740993", 9_007_199_254_740_992), ("1e-400", 0), ("4.9e-324", .leastNonzeroMagnitude),
            ("1.7976931348623157e308", 1.7976931348623157e308),
            ("-0.0", 0), ("999999999999999", 999_999_999_999_999), ("-1000000000000000", -1_000_000_000_000_000),
        ])
    func numbersInTheGrammar(text: String, value: Double) throws {
        #expect(try JSONValue.parse(bytes: Array(text.utf8)) == .number(value))
    }

    @Test("-0 keeps its sign")
    func negativeZero() throws {
        guard case .number(let zero) = try JSONValue.parse(bytes: Array("-0".utf8)) else {
            Issue.record("not a number")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test(
        "a number past a double's range is refused, quoting at most its start",
        arguments: [
            "1e400", "-1e400", "1.7976931348623159e308", "1" + String(repeating: "0", count: 400), "[" + String(repeating: "9", count: 1_000_000) + "]",
        ])
    func numbersOutOfRange(text: String) {
        guard let error = refusal(text) else { return }
        #expect(error.offset == (text.hasPrefix("[") ? 1 : 0), "\(error)")
        #expect(error.reason.contains("range"), "\(error)")
    }

    /// `["ok","a` then the bytes then `b"]`: the sequence starts at byte 8.
    static func inString(_ sequence: [UInt8]) -> [UInt8] { Array(#"["ok","a"#.utf8) + sequence + Array(#"b"]"#.utf8) }

    @Test(
        "ill-formed UTF-8 in a string is refused at the sequence's first byte: bytes UTF-8 never has, lone continuations, overlongs, encoded surrogates, past U+10FFFF, cut sequences",
        arguments: [
            [0xFF], [0xFE], [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xC2, 0x41], [0xE2, 0x28, 0xA1],
        ] as [[UInt8]])
    func invalidUTF8InStrings(sequence: [UInt8]) {
        guard let error = refusal(Self.inString(sequence)) else { return }
        #expect(error.offset == 8, "\(error)")
        #expect(error.reason.contains("UTF-8"), "\(error)")
    }

    @Test("ill-formed UTF-8 right before a string's closing quote, and outside strings, is refused at its offset")
    func invalidUTF8Elsewhere() {
        let cases: [([UInt8], Int)] = [
            (Array(#"["ok","a"#.utf8) + [0xC2] + Array(#""]"#.utf8), 8), (Array(#"["a"#.utf8) + [0xF0, 0x9F, 0x8E], 3),
            (Array("[1,".utf8) + [0xFF] + Array("]".utf8), 3),
            (Array(#"{"a":1}"#.utf8) + [0xFE], 7), (Array(#"{"#.utf8) + [0xC3, 0xA9] + Array(#"":1}"#.utf8), 1), ([0xEF, 0xBB, 0xBF] + Array("[1]".utf8), 0),
        ]
        for (bytes, offset) in cases {
            guard let error = refusal(bytes) else { continue }
            #expect(error.offset == offset, "\(bytes): \(error)")
        }
    }

    @Test("the ids a\\xFFb and a\\xFEb are refused, not read as one id")
    func repairedIDsDoNotCollide() {
        for byte: UInt8 in [0xFF, 0xFE] {
            let record = Array(#"{"id":"a"#.utf8) + [byte] + Array(#"b","op":"installations.delete","installations":["f"]}"#.utf8)
            guard let error = refusal(record) else { continue }
            #expect(error.offset == 8, "\(error)")
        }
    }

    @Test("well-formed UTF-8 at the edges of each length reads back byte for byte", arguments: JSONFuzzGenerator.validSequences)
    func validUTF8(sequence: [UInt8]) throws {
        let value = try JSONValue.parse(bytes: Self.inString(sequence))
        #expect(value == .array([.string("ok"), .string("a" + String(decoding: sequence, as: UTF8.self) + "b")]))
        guard case .array(let elements) = value, case .string(let text) = elements[1] else { return }
        #expect(Array(text.utf8) == [UInt8(ascii: "a")] + sequence + [UInt8(ascii: "b")])
    }

    @Test(
        "a \\u escape of a lone surrogate is refused at its backslash, as JSONSerialization refuses it: a String cannot hold one, and a replacement would make two ids one",
        arguments: [
            (#"["\ud800"]"#, 2), (#"["\udc00"]"#, 2), (#"["\ud800\u0041"]"#, 2), (#"["x\uD800"]"#, 3), (#"["\ud800\ud800"]"#, 2), (#"["\uDFFF\uD800"]"#, 2),
            (#"["\ud800\"]"#, 2), (#"["\ud83c\udf8"]"#, 8),
        ])
    func loneSurrogates(text: String, offset: Int) {
        guard let error = refusal(text) else { return }
        #expect(error.offset == offset, "\(error)")
    }

    @Test("escapes read as what they stand for, a surrogate pair as its scalar")
    func escapes() throws {
        let value = try JSONValue.parse(bytes: Array(#"["\ud83c\udf89\u00e9\u0000\uFFFF\"\\\/\b\f\n\r\t"]"#.utf8))
        #expect(value == .array([.string("🎉é\u{0}\u{FFFF}\"\\/\u{8}\u{C}\n\r\t")]))
    }

    @Test("a repeated member name is refused at the repeat, naming it and where it first was")
    func repeatedName() {
        let head = #"{"op":"installations.delete","id":"x","#
        let text = head + #""op":"instances.info","installations":["f"]}"#
        guard let error = refusal(text) else { return }
        #expect(error.offset == head.utf8.count, "\(error)")
        #expect(error.reason.contains(#""op""#) && error.reason.contains("byte 1"), "\(error)")
    }

    @Test(
        "names are the same when their text is, whatever the escapes, and under Unicode canonical equivalence (as Swift strings, and Foundation, compare them)",
        arguments: [
            (#"{"op":1,"\u006fp":2}"#, 8), (#"{"é":1,"e\u0301":2}"#, 8), ("{\"é\":1,\"e\u{301}\":2}", 8), (#"{"a":{"b":1,"b":2}}"#, 12),
            (#"[{"a":1},{"a":1,"a":1}]"#, 16), (#"{"":1,"":2}"#, 6),
        ])
    func repeatedNames(text: String, offset: Int) {
        guard let error = refusal(text) else { return }
        #expect(error.offset == offset, "\(error)")
    }

    @Test("the same name in different objects is no repeat")
    func sameNameElsewhere() throws {
        #expect(try JSONValue.parse(bytes: Array(#"{"a":{"a":1},"b":{"a":2},"c":[{"a":3},{"a":4}]}"#.utf8))["b"]?["a"] == .number(2))
    }

    @Test("a long repeated name is quoted by its first bytes, cut where a character starts")
    func longRepeatedName() {
        let name = String(repeating: "é", count: 10_000)
        guard let error = refusal("{\"\(name)\":1,\"\(name)\":2}") else { return }
        #expect(error.offset == name.utf8.count + 6, "\(error)")
        #expect(error.reason.contains("éééé") && !error.reason.contains("\u{FFFD}"), "\(error)")
    }

    @Test("every control character in a string is refused at its offset; DEL is not a control character in JSON")
    func controlCharacters() throws {
        for byte: UInt8 in 0..<0x20 {
            guard let error = refusal(Array(#"["ab"#.utf8) + [byte] + Array(#""]"#.utf8)) else { continue }
            #expect(error.offset == 4, "\(byte): \(error)")
        }
        #expect(try JSONValue.parse(bytes: Array("[\"\u{7F}\"]".utf8)) == .array([.string("\u{7F}")]))
    }

    @Test(
        "anything after the document is refused at its first byte",
        arguments: [("{} x", 3), ("[1]]", 3), ("1 2", 2), (#""a""b""#, 3), ("{}\u{0}", 2), ("[] []", 3), ("null,", 4), ("{},", 2)])
    func trailingBytes(text: String, offset: Int) {
        guard let error = refusal(text) else { return }
        #expect(error.offset == offset, "\(error)")
    }

    @Test("RFC 8259's whitespace only; no trailing commas, comments, or single quotes")
    func onlyTheGrammar() {
        for (text, offset) in [
            ("[1,]", 3), (#"{"a":1,}"#, 7), ("[\u{0B}1]", 1), ("[\u{0C}1]", 1), ("[\u{A0}1]", 1), ("[1/**/]", 2), ("['a']", 1), ("[,1]", 1), ("{,}", 1),
            ("[1 2]", 3), (#"{"a" 1}"#, 5), (#"{"a":}"#, 5), (#"{1:2}"#, 1), ("tru", 3), ("nul", 3), ("True", 0), ("", 0), (" ", 1),
        ] {
            guard let error = refusal(text) else { continue }
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test("arrays and objects nest 64 deep; the 65th opening bracket is refused, even in a megabyte of them")
    func depth() throws {
        let deepest = String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONValue.parse(bytes: Array(deepest.utf8)) }
        #expect(refusal("[" + deepest + "]")?.offset == 64)
        #expect(refusal(String(repeating: "[", count: 1 << 20))?.offset == 64)
        #expect(refusal(String(repeating: #"{"a":"#, count: 1 << 18))?.offset == 64 * 5)
        #expect(refusal(#"{"a":"# + String(repeating: "[", count: 1 << 20))?.offset == 5 + 63)
        let objects = String(repeating: #"{"a":"#, count: 63) + "{}" + String(repeating: "}", count: 63)
        #expect(throws: Never.self) { try JSONValue.parseMembers(bytes: Array(objects.utf8)) }
    }

    @Test("a refusal quotes at most a few dozen bytes of the document, however long what it names")
    func boundedReasons() {
        let long = String(repeating: "a", count: 1 << 20)
        for text in [
            "\"" + long, "[\"" + long, "[" + long + "]", "{\"" + long + "\" 1}", "{\"" + long + "\":1,\"" + long + "\":2}", "[1" + long + "]",
            "[" + String(repeating: "1", count: 1 << 20) + "x]", "[\"\\" + long + "\"]", "[\"\\uz" + long + "\"]", "[t" + long + "]",
        ] {
            _ = refusal(text)
        }
    }

    @Test("strings are stream-safe text: 30 combining marks in a row read, the 31st is refused at the string's quote, as written or escaped, in names too")
    func streamSafe() throws {
        let thirty = "a" + String(repeating: "\u{301}\u{316}", count: 15)
        #expect(try JSONValue.parse(bytes: Array(("[\"" + thirty + "\"]").utf8)) == .array([.string(thirty)]))
        #expect(refusal("[\"" + thirty + "\u{301}\"]")?.offset == 1)
        #expect(refusal("[1, \"" + thirty + #"\u0316"]"#)?.offset == 4)
        #expect(refusal("{\"" + thirty + "\u{301}\": 1}")?.offset == 1)
        // Runs apart are each within the limit; a scalar that decomposes into two marks counts two.
        let apart = Array(repeating: String(repeating: "\u{301}", count: 30), count: 1_000).joined(separator: "x")
        #expect(try JSONValue.parse(bytes: Array(("\"" + apart + "\"").utf8)) == .string(apart))
        #expect(refusal("\"" + String(repeating: "\u{344}", count: 16) + "\"") != nil)
        // A megabyte of alternating marks, which Swift took minutes to compare, is refused at once.
        #expect(refusal("[\"a" + String(repeating: "\u{301}\u{316}", count: 1 << 18) + "\"]")?.offset == 1)
    }
}
