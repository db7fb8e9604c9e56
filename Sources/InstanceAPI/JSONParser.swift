/// Recursive-descent parsing for `JSONValue`.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private static let maxDepth = 64

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    /// Skips whitespace, then takes `byte` when it comes next; false, taking nothing more, when
    /// something else does.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace, then reads a string when one comes next; nil when something else does.
    mutating func takeString() throws(JSONValue.ParseError) -> String? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        return try string()
    }

    /// True when nothing but whitespace is left.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    private func fail(_ reason: String) -> JSONValue.ParseError { JSONValue.ParseError(offset: index, reason: reason) }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth)") }
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws(JSONValue.ParseError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(word)") }
            index += 1
        }
    }

    private mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        .object(try members(depth: depth) { parser throws(JSONValue.ParseError) in try parser.value(depth: depth + 1) })
    }

    /// Reads the object that comes next (the parser is at its `{`), each member's value read by
    /// `value`; a repeated name keeps its last value.
    mutating func members<Value>(
        depth: Int, _ value: (inout JSONParser) throws(JSONValue.ParseError) -> Value
    ) throws(JSONValue.ParseError) -> [String: Value] {
        var members: [String: Value] = [:]
        guard !opensEmpty(closedBy: UInt8(ascii: "}")) else { return members }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            members[key] = try value(&self)
        } while try !closesAfterElement(UInt8(ascii: "}"), of: "object")
        return members
    }

    /// Takes the opening bracket the parser is at, then the closing one when it comes next:
    /// true for an empty container.
    private mutating func opensEmpty(closedBy closing: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        return true
    }

    /// After an element of a container: takes a `,` (false: another element follows) or the
    /// container's `closing` bracket (true).
    private mutating func closesAfterElement(_ closing: UInt8, of container: String) throws(JSONValue.ParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unterminated \(container)") }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return false
        case closing:
            index += 1
            return true
        default:
            throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
    }

    /// Reads the value that comes next as a `JSONMember`: an array of strings straight into
    /// packed strings (no `String` per element), anything else as a `JSONValue`.
    mutating func member(depth: Int) throws(JSONValue.ParseError) -> JSONMember {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "["), let strings = try stringArray() { return .strings(strings) }
        return .value(try value(depth: depth))
    }

    /// Reads the array that comes next (the parser is at its `[`) when every element is a
    /// string; nil, with the parser back at the `[`, when one is not. ASCII strings without
    /// escapes (the usual tokens and ids) stay where they are in `bytes`; the list only records
    /// their ranges.
    private mutating func stringArray() throws(JSONValue.ParseError) -> PackedStrings? {
        let start = index
        var bounds: [Range<Int>] = []
        var slash = false
        // Set once an element had to be unescaped or repaired: it and those after it are copied.
        var copied: PackedStrings?
        guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return PackedStrings() }
        // Records are mostly written compactly (`["a","b"]`): whitespace is looked for only where
        // a quote does not come next, and a `,` right after an element is taken on the spot.
        while true {
            if index < bytes.count, bytes[index] != UInt8(ascii: "\"") { skipWhitespace() }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                index = start
                return nil
            }
            if copied == nil, let plain = plainString(at: index) {
                bounds.append(plain.text)
                slash = slash || plain.slash
                index = plain.text.upperBound + 1
            } else {
                if copied == nil { copied = PackedStrings(storage: bytes, bounds: bounds, isPlainJSON: !slash) }
                copied!.append(try string())
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if try closesAfterElement(UInt8(ascii: "]"), of: "array") {
                break
            }
        }
        return copied ?? PackedStrings(storage: bytes, bounds: bounds, isPlainJSON: !slash)
    }

    /// The string whose opening quote is at `quote`, when it is ASCII without escapes: the range
    /// of its text in `bytes` and whether it holds a `/`; nil for any other string.
    private func plainString(at quote: Int) -> (text: Range<Int>, slash: Bool)? {
        let text = bytes.span
        var end = quote + 1
        var slashes = false
        // Printable ASCII (0x20...0x7F, which `&- 0x20` maps below 0x60) but for `"` and `\`: the
        // scan stops at the closing quote, or at the first byte that makes the string not plain.
        while end < text.count {
            let byte = text[end]
            guard byte &- 0x20 < 0x60, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { break }
            slashes = slashes || byte == UInt8(ascii: "/")
            end += 1
        }
        guard end < text.count, text[end] == UInt8(ascii: "\"") else { return nil }
        return ((quote + 1)..<end, slashes)
    }

    private mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        var elements: [JSONValue] = []
        guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return .array(elements) }
        repeat {
            elements.append(try value(depth: depth + 1))
        } while try !closesAfterElement(UInt8(ascii: "]"), of: "array")
        return .array(elements)
    }

    private mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            defer { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("bad surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw fail("bad escape")
                }
            case 0..<0x20:
                throw fail("control character in string")
            default:
                out.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        while index < bytes.count,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[index])
        {
            index += 1
        }
        guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw JSONValue.ParseError(offset: start, reason: "expected a value")
        }
        return value
    }
}
