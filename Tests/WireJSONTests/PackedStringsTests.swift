import Foundation
import Testing

@testable import WireJSON

@Suite("Packed strings: items as one buffer, read and written as arrays of strings are")
struct PackedStringsTests {
    /// Strings of every kind an item can hold: plain tokens, escapes, non-ASCII, empty.
    private static let samples = ["fcm-token-0001", "t\"2", "a/b", "é-ünïcode", "tab\there", "", "x", String(repeating: "k", count: 200), "😀"]

    @Test("appends, slices and removals keep every element, its order and whether any needs escaping")
    func modelOperations() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var model: [String] = []
            var packed = PackedStrings()
            for _ in 0..<Int.random(in: 0...30, using: &random) {
                let element = Self.samples.randomElement(using: &random)!
                model.append(element)
                packed.append(element)
            }
            #expect(packed.strings == model)
            #expect(packed == PackedStrings(model))
            #expect(packed.isPlainJSON == model.allSatisfy(JSONValue.isPlain))
            let lower = Int.random(in: 0...model.count, using: &random)
            let upper = Int.random(in: lower...model.count, using: &random)
            #expect(packed.extracting(lower..<upper).strings == Array(model[lower..<upper]))
            #expect(packed.extracting(lower..<upper) == PackedStrings(model[lower..<upper]))
            var taken = PackedStrings()
            for index in stride(from: model.count - 1, through: 0, by: -2) { taken.append(index, of: packed) }
            #expect(taken.strings == stride(from: model.count - 1, through: 0, by: -2).map { model[$0] })
            var joined = packed
            joined.append(contentsOf: taken)
            #expect(joined.strings == model + taken.strings)
            var ranged = taken
            ranged.append(lower..<upper, of: packed)
            #expect(ranged.strings == taken.strings + model[lower..<upper])
            #expect(ranged.isPlainJSON == ranged.strings.allSatisfy(JSONValue.isPlain))
            var rest = packed
            rest.removeFirst(lower)
            #expect(rest.strings == Array(model.dropFirst(lower)))
            #expect(rest.indices.map(rest.byteCount) == model.dropFirst(lower).map(\.utf8.count))
        }
    }

    @Test("stretches of a list read from a record append as they read, whatever lies between the elements")
    func rangesOfRecords() throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let added = (0..<Int.random(in: 1...30, using: &random)).map { _ in Self.samples.randomElement(using: &random)! }
            // Compact, spaced or mixed: the stretch copy applies only where a bare separator lies between elements.
            let separator = [",", ", ", " ,\n "].randomElement(using: &random)!
            let array = try added.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: separator)
            let members = try #require(try JSONValue.parseMembers(bytes: Array(#"{"id": "r", "tokens": [\#(array)]}"#.utf8)))
            guard case .strings(let tokens) = members["tokens"] else {
                Issue.record("tokens not packed in round \(round)")
                return
            }
            var list = PackedStrings(["first"])
            var model = ["first"]
            for _ in 0..<4 {
                let lower = Int.random(in: 0...added.count, using: &random)
                let upper = Int.random(in: lower...added.count, using: &random)
                list.append(lower..<upper, of: tokens)
                model += added[lower..<upper]
            }
            #expect(list.strings == model, "round \(round)")
            #expect(list.indices.map(list.byteCount) == model.map(\.utf8.count))
            #expect(list.isPlainJSON == model.allSatisfy(JSONValue.isPlain))
        }
    }

    @Test("a queue fed with lists read from records and taken from in front keeps every element, in order")
    func queue() throws {
        var random = SystemRandomNumberGenerator()
        var model: [String] = []
        var queue = PackedStrings()
        for round in 0..<300 {
            let added = (0..<Int.random(in: 1...40, using: &random)).map { _ in "r\(round)-" + Self.samples.randomElement(using: &random)! }
            let record = Array(#"{"id": "r-\#(round)", "tokens": \#(String(decoding: try JSONEncoder().encode(added), as: UTF8.self))}"#.utf8)
            let members = try #require(try JSONValue.parseMembers(bytes: record))
            guard case .strings(let tokens) = members["tokens"] else {
                Issue.record("tokens not packed in round \(round)")
                return
            }
            #expect(tokens.strings == added)
            queue.append(contentsOf: tokens)
            model += added
            let taken = Int.random(in: 0...min(model.count, 50), using: &random)
            #expect(queue.extracting(0..<taken).strings == Array(model.prefix(taken)))
            queue.removeFirst(taken)
            model.removeFirst(taken)
            #expect(queue.count == model.count)
            #expect(queue.byteCount == model.reduce(0) { $0 + $1.utf8.count })
            #expect(queue.isPlainJSON == model.allSatisfy(JSONValue.isPlain))
        }
        #expect(queue.strings == model)
        #expect(queue == PackedStrings(model) && queue.hashValue == PackedStrings(model).hashValue)
    }

    @Test("encodes and decodes as a JSON array of strings")
    func codable() throws {
        let packed = PackedStrings(Self.samples)
        let data = try JSONEncoder().encode(packed)
        #expect(try JSONDecoder().decode([String].self, from: data) == Self.samples)
        #expect(try JSONDecoder().decode(PackedStrings.self, from: data) == packed)
    }

    @Test("the writer writes packed strings byte for byte as it writes the array, plain or not")
    func writer() {
        for strings in [["a", "bb", "ccc"], Self.samples, ["only"], []] {
            var fromArray = JSONWriter()
            fromArray.strings(strings)
            var fromPacked = JSONWriter()
            fromPacked.strings(PackedStrings(strings))
            #expect(fromPacked.bytes == fromArray.bytes, "\(strings)")
        }
    }

    @Test("lists read from records are written as their arrays are, whatever the record's layout and however they were cut and joined")
    func writerFromRecords() throws {
        let layouts = [
            #"{"tokens":["a","bb","ccc","dddd"]}"#, #"{"tokens": [ "a" , "bb","ccc",  "dddd" ] }"#, #"{"tokens":["a","b\/b","ccc","dddd"]}"#,
            #"{"x":"\"","tokens":["a","bb"],"y":"\""}"#, #"{"tokens":["a"]}"#, #"{"tokens":["\u0061","bb","ccc","dddd"]}"#,
        ]
        for layout in layouts {
            let members = try #require(try JSONValue.parseMembers(bytes: Array(layout.utf8)))
            guard case .strings(let tokens) = members["tokens"] else {
                Issue.record("tokens not packed: \(layout)")
                continue
            }
            var parts = [tokens, tokens.extracting(1..<tokens.count), tokens.extracting(0..<min(2, tokens.count))]
            var joined = tokens.extracting(1..<tokens.count)
            joined.append(contentsOf: tokens)
            joined.append("tail")
            parts.append(joined)
            var reordered = PackedStrings()
            for index in tokens.indices.reversed() { reordered.append(index, of: tokens) }
            parts.append(reordered)
            for part in parts {
                var fromArray = JSONWriter()
                fromArray.strings(part.strings)
                var fromPacked = JSONWriter()
                fromPacked.strings(part)
                #expect(String(decoding: fromPacked.bytes, as: UTF8.self) == String(decoding: fromArray.bytes, as: UTF8.self), "\(layout): \(part)")
            }
        }
    }

    @Test("a list gathered from the arrays of several records, or from scattered elements, is written in one or two copies")
    func gatheredStretches() throws {
        let records = try (0..<10).map { record in
            let text = #"{"tokens":["# + (0..<100).map { #""r\#(record)t\#($0)""# }.joined(separator: ",") + "]}"
            let members = try #require(try JSONValue.parseMembers(bytes: Array(text.utf8)))
            guard case .strings(let tokens) = members["tokens"] else {
                Issue.record("tokens not packed: \(text)")
                return PackedStrings()
            }
            return tokens
        }
        // As the planner gathers a call: the first request's items taken as they are, the rest
        // appended behind them.
        var call = PackedStrings()
        for tokens in records { call.append(contentsOf: tokens) }
        // As retries gather items: every other one, each copied alone.
        var scattered = PackedStrings()
        for tokens in records { for index in stride(from: 1, to: tokens.count, by: 2) { scattered.append(index, of: tokens) } }
        // The tail of one list after its head was taken.
        var tail = call
        tail.removeFirst(150)
        tail.append("added")
        for (list, stretches) in [(call, 2), (scattered, 1), (tail, 2)] {
            var written: [UInt8] = []
            #expect(list.appendJSONElements(to: &written) <= stretches)
            var fromArray = JSONWriter()
            fromArray.strings(list.strings)
            #expect("[" + String(decoding: written, as: UTF8.self) + "]" == String(decoding: fromArray.bytes, as: UTF8.self))
        }
    }

    @Test(
        "parseMembers reads every object as parse reads it, arrays of strings included",
        arguments: [
            #"{"id": "r-1", "op": "topics.subscribe", "topic": "m", "tokens": ["t1", "t2", "t3"]}"#,
            #"{"tokens": ["esc\"aped", "sl\/ash", "\u00e9\u00E9", "\ud83d\ude00", "é-raw", "tab\t"]}"#,
            #"{"tokens": [], "empty": [ ], "spaced" : [ "a" , "b" ] }"#,
            #"{"mixed": ["a", 1, null], "nested": [["a"], "b"], "object": {"inner": ["x"]}, "n": 3.5, "f": false}"#,
            #"{"tokens": ["", "x"]}"#,
            #"{"tokens":["a","b", "c" ,"d","é","e\/f","g",""]}"#,
            "{}",
        ])
    func membersAsParsed(text: String) throws {
        let bytes = Array(text.utf8)
        let members = try #require(try JSONValue.parseMembers(bytes: bytes))
        #expect(JSONValue.object(members.mapValues(\.value)) == (try JSONValue.parse(bytes: bytes)))
    }

    @Test("a special byte at any position of a token reads as parse reads it, and the list writes back as its array would")
    func specialsAcrossWords() throws {
        let specials = [#"\""#, #"\\"#, #"\/"#, "/", "é", "\u{7F}", #"\u0041"#, "\u{1F}"]
        for length in 0...19 {
            for special in specials {
                for position in 0...length {
                    let before = String(repeating: "a", count: position)
                    let after = String(repeating: "b", count: length - position)
                    let token = before + special + after
                    let text = #"{"tokens":["x",""# + token + #"","tail-token-0123456789"]}"#
                    let bytes = Array(text.utf8)
                    let parsed = Result { () throws(JSONValue.ParseError) in try JSONValue.parse(bytes: bytes) }
                    let members = Result { () throws(JSONValue.ParseError) in try JSONValue.parseMembers(bytes: bytes) }
                    switch (parsed, members) {
                    case (.success(let value), .success(let members?)):
                        #expect(JSONValue.object(members.mapValues(\.value)) == value, "\(text)")
                        guard case .strings(let tokens) = members["tokens"] else {
                            Issue.record("tokens not packed: \(text)")
                            continue
                        }
                        var fromArray = JSONWriter()
                        fromArray.strings(tokens.strings)
                        var fromPacked = JSONWriter()
                        fromPacked.strings(tokens)
                        #expect(fromPacked.bytes == fromArray.bytes, "\(text)")
                    case (.failure(let expected), .failure(let error)):
                        #expect(error.offset == expected.offset && error.reason == expected.reason, "\(text): \(error) vs \(expected)")
                    default:
                        Issue.record("\(text): parse gave \(parsed), parseMembers gave \(members)")
                    }
                }
            }
        }
    }

    @Test("bytes that are not UTF-8 inside a packed string are refused where parse refuses them")
    func invalidUTF8() throws {
        let bytes = Array(#"{"tokens": ["ok", ""#.utf8) + [0xFF, 0x41] + Array(#""]}"#.utf8)
        let parsed = Result { () throws(JSONValue.ParseError) in try JSONValue.parse(bytes: bytes) }
        let members = Result { () throws(JSONValue.ParseError) in try JSONValue.parseMembers(bytes: bytes) }
        guard case .failure(let expected) = parsed, case .failure(let error) = members else {
            Issue.record("accepted: parse gave \(parsed), parseMembers gave \(members)")
            return
        }
        #expect(error.offset == 19 && error.offset == expected.offset && error.reason == expected.reason, "\(error) vs \(expected)")
    }

    @Test(
        "a document that is not an object gives nil; a malformed one fails where parse fails",
        arguments: [
            "[1]", "\"text\"", "3", "{\"a\": [\"x\",]}", "{\"a\": [\"x\",,\"y\"]}", "{\"a\": [\"x\", ]}", "{\"a\": [\"x\",\"y\"", "{\"a\": [\"x\" \"y\"]}",
            "{\"a\": [\"unterminated]}", "{\"a\": 1} x", "", "{\"a\": [\"\\q\"]}", #"{"tokens": ["first"], "tokens": ["second"]}"#,
        ])
    func notObjects(text: String) {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JSONValue.ParseError) in try JSONValue.parse(bytes: bytes) }
        let members = Result { () throws(JSONValue.ParseError) in try JSONValue.parseMembers(bytes: bytes) }
        switch (parsed, members) {
        case (.success(let value), .success(let members)):
            if case .object = value { Issue.record("\(text) is an object") }
            #expect(members == nil, "\(text)")
        case (.failure(let expected), .failure(let error)):
            #expect(error.offset == expected.offset && error.reason == expected.reason, "\(text): \(error) vs \(expected)")
        default:
            Issue.record("\(text): parse gave \(parsed), parseMembers gave \(members)")
        }
    }
}
